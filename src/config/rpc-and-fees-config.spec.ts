import { describe, expect, it } from "vitest";

import { ConfigError, loadConfig } from "./app-config";

const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig({ REGISTRY_ADDRESS: REGISTRY, APP_ROLE: "api", ...env });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

describe("JSON-RPC endpoints and fees in the configuration", () => {
  it("takes CHAIN_RPC_URLS in order, or CHAIN_RPC_URL alone, not both", () => {
    const several = loadConfig({ REGISTRY_ADDRESS: REGISTRY, APP_ROLE: "api", CHAIN_RPC_URLS: "https://a.example.com/v3/key, http://b:8545" }).chain;
    expect([several.rpcUrls, several.rpcUrl]).toEqual([["https://a.example.com/v3/key", "http://b:8545"], "https://a.example.com/v3/key"]);
    const single = loadConfig({ REGISTRY_ADDRESS: REGISTRY, APP_ROLE: "api", CHAIN_RPC_URL: "http://chain:8545" }).chain;
    expect([single.rpcUrls, single.rpcUrl]).toEqual([["http://chain:8545"], "http://chain:8545"]);
    expect(loadConfig({}).chain.rpcUrls).toEqual([]);
    expect(problemsOf({ CHAIN_RPC_URL: "http://a:1", CHAIN_RPC_URLS: "http://b:1" })).toEqual(["CHAIN_RPC_URL and CHAIN_RPC_URLS: set one of them, not both"]);
    expect(problemsOf({ CHAIN_RPC_URLS: "http://a:1,ws://b:1,https://user:secret@ not a url" })).toEqual([
      'CHAIN_RPC_URLS entry 2 must use http: or https:, got "ws:"',
      "CHAIN_RPC_URLS entry 3 must be a URL",
    ]);
    expect(problemsOf({ CHAIN_RPC_URLS: "http://a:1,http://a:1" })).toEqual(["CHAIN_RPC_URLS lists a URL twice"]);
  });

  it("reads CHAIN_RPC_HEADERS as a JSON object of header names and string values, never echoing a value", () => {
    const chain = loadConfig({ CHAIN_RPC_HEADERS: '{"X-Api-Key":"k-123","x-other":"v"}' }).chain;
    expect(chain.rpcHeaders).toEqual({ "x-api-key": "k-123", "x-other": "v" });
    expect(loadConfig({}).chain.rpcHeaders).toEqual({});
    expect(problemsOf({ CHAIN_RPC_HEADERS: "x-api-key: secret-value" })).toEqual([
      'CHAIN_RPC_HEADERS must be a JSON object of header names and values, such as {"x-api-key":"..."}',
    ]);
    expect(problemsOf({ CHAIN_RPC_HEADERS: '["secret-value"]' })).toEqual(["CHAIN_RPC_HEADERS must be a JSON object of header names and values"]);
    const problems = problemsOf({ CHAIN_RPC_HEADERS: '{"bad name":"secret-value","x-key":42,"x-line":"secret\\r\\nvalue"}' });
    expect(problems).toEqual([
      'CHAIN_RPC_HEADERS: "bad name" is not a valid header name',
      'CHAIN_RPC_HEADERS: the value of "x-key" must be a string on one line',
      'CHAIN_RPC_HEADERS: the value of "x-line" must be a string on one line',
    ]);
    expect(problems.join(" ")).not.toContain("secret");
  });

  it("reads the tip's floor and the fee cap in gwei, floor 0 and no cap by default", () => {
    expect(loadConfig({}).chain.fees).toEqual({ minPriorityFeeWei: 0n, maxFeePerGasWei: null });
    expect(loadConfig({ MIN_PRIORITY_FEE_GWEI: "25", MAX_FEE_PER_GAS_GWEI: "500.5" }).chain.fees).toEqual({
      minPriorityFeeWei: 25_000_000_000n,
      maxFeePerGasWei: 500_500_000_000n,
    });
    expect(problemsOf({ MIN_PRIORITY_FEE_GWEI: "-1", MAX_FEE_PER_GAS_GWEI: "1e3" })).toEqual([
      'MIN_PRIORITY_FEE_GWEI must be an amount of gwei such as 25 or 1.5 (at most 9 decimals), got "-1"',
      'MAX_FEE_PER_GAS_GWEI must be an amount of gwei such as 25 or 1.5 (at most 9 decimals), got "1e3"',
    ]);
    expect(problemsOf({ MIN_PRIORITY_FEE_GWEI: "30", MAX_FEE_PER_GAS_GWEI: "20" })).toEqual(["MAX_FEE_PER_GAS_GWEI must not be below MIN_PRIORITY_FEE_GWEI"]);
  });
});

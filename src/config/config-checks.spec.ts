import { describe, expect, it } from "vitest";

import { loadConfig } from "./app-config";
import { configProblems } from "./config-checks";
import type { AppConfig } from "./config-types";

const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const SIGNER = "0x" + "ab".repeat(32);

/** The development defaults with some sections replaced, as the schema could have read them. */
function configWith(changes: { [K in keyof AppConfig]?: Partial<AppConfig[K]> }): AppConfig {
  const base = loadConfig({});
  const merged = { ...base } as Record<string, unknown>;
  for (const [section, values] of Object.entries(changes)) merged[section] = { ...base[section as keyof AppConfig], ...values };
  return merged as unknown as AppConfig;
}

describe("configProblems", () => {
  it("finds nothing wrong with the development defaults", () => {
    expect(configProblems(loadConfig({}))).toEqual([]);
  });

  it("wants signer keys only where the chain writer runs", () => {
    const chain = { rpcUrl: "http://chain:8545", registryAddress: REGISTRY, signerKeys: [] };
    const problem = "SIGNER_PRIVATE_KEYS (or SIGNER_REMOTE_URL with SIGNER_ADDRESSES) is required where the chain writer runs (APP_ROLE worker or all)";
    expect(configProblems(configWith({ chain, app: { role: "all" } }))).toEqual([problem]);
    expect(configProblems(configWith({ chain, app: { role: "worker" } }))).toEqual([problem]);
    expect(configProblems(configWith({ chain, app: { role: "api" } }))).toEqual([]);
    expect(configProblems(configWith({ chain: { ...chain, signerKeys: [SIGNER] } }))).toEqual([]);
  });

  it("takes a remote signer with its addresses instead of keys, never both, and well-formed, distinct addresses", () => {
    const chain = { rpcUrl: "http://chain:8545", registryAddress: REGISTRY, signerKeys: [] };
    const remote = { signerRemoteUrl: "http://signer:9000", signerAddresses: [REGISTRY] };
    expect(configProblems(configWith({ chain: { ...chain, ...remote }, app: { role: "worker" } }))).toEqual([]);
    expect(configProblems(configWith({ chain: { ...chain, ...remote, signerKeys: [SIGNER] } }))).toEqual([
      "SIGNER_PRIVATE_KEYS and SIGNER_REMOTE_URL: set one of them, not both",
    ]);
    const together = "SIGNER_REMOTE_URL and SIGNER_ADDRESSES go together: the remote signer and the accounts it signs for";
    expect(configProblems(configWith({ chain: { ...chain, signerRemoteUrl: "http://signer:9000" } }))).toEqual([together]);
    expect(configProblems(configWith({ chain: { ...chain, signerKeys: [SIGNER], signerAddresses: [REGISTRY] } }))).toEqual([together]);
    expect(configProblems(configWith({ chain: { ...chain, ...remote, signerAddresses: [REGISTRY, REGISTRY.toLowerCase(), "0x12"] } }))).toEqual([
      "SIGNER_ADDRESSES entry 3 is not a 0x-prefixed 20-byte address",
      "SIGNER_ADDRESSES lists an address twice",
    ]);
  });

  it("wants a registry with a chain, and well-formed, distinct signer keys", () => {
    expect(
      configProblems(configWith({ chain: { rpcUrl: "http://chain:8545", signerKeys: [SIGNER, SIGNER.toUpperCase().replace("0X", "0x"), "0x12"] } })),
    ).toEqual([
      "SIGNER_PRIVATE_KEYS entry 3 is not a 0x-prefixed 32-byte hex key",
      "SIGNER_PRIVATE_KEYS lists a key twice",
      "REGISTRY_ADDRESS is required with CHAIN_RPC_URL",
    ]);
  });

  it("refuses in production what only tests and development may use, in a fixed order", () => {
    const production = configWith({
      app: { mode: "production", role: "api" },
      chain: { rpcUrl: "https://rpc.example.com", registryAddress: REGISTRY, crashAt: "after-persist" },
      callbacks: { allowHosts: ["localhost"], retryScale: 0.5, secretsKey: null },
      dev: { ticketeerId: "org", apiKey: "k".repeat(32), webhookSecret: "whsec_x" },
    });
    expect(configProblems(production)).toEqual([
      "DEV_TICKETEER_ID and DEV_API_KEY are refused in production mode",
      "CHAIN_WRITER_CRASH_AT is a test hook and is refused in production mode",
      "CALLBACK_ALLOW_HOSTS lets callbacks reach private addresses: refused in production mode",
      "CALLBACK_RETRY_SCALE shortens the callbacks' retry schedule: refused in production mode",
      "DEV_WEBHOOK_SECRET is refused in production mode",
      "WEBHOOK_SECRETS_KEY is required in production mode (base64 of 32 random bytes: openssl rand -base64 32)",
      expect.stringMatching(/^PUBLIC_BASE_URL is required in production mode/),
    ]);
    expect(configProblems(configWith({ app: { mode: "production" } }))).toContain("CHAIN_RPC_URL is required in production mode");
  });

  it("wants PUBLIC_BASE_URL in production where the API runs, saying what to set", () => {
    const production = (role: AppConfig["app"]["role"], publicBaseUrl: string | null) =>
      configWith({
        app: { mode: "production", role, publicBaseUrl },
        chain: { rpcUrl: "https://rpc.example.com", registryAddress: REGISTRY, signerKeys: [SIGNER] },
        callbacks: { secretsKey: Buffer.alloc(32, 1).toString("base64") },
      });
    const problem =
      "PUBLIC_BASE_URL is required in production mode where the API runs (APP_ROLE api or all): set it to the api's public address, " +
      "such as PUBLIC_BASE_URL=https://tickets.example.com. Tokens' external_url and the collection's external_link are built from it, " +
      "never from a request's Host header";
    expect(configProblems(production("api", null))).toEqual([problem]);
    expect(configProblems(production("all", null))).toEqual([problem]);
    expect(configProblems(production("worker", null))).toEqual([]);
    expect(configProblems(production("api", "https://tickets.example.com"))).toEqual([]);
    expect(configProblems(configWith({ app: { role: "api", publicBaseUrl: null } }))).toEqual([]);
  });

  it("wants a lease longer than a delivery's timeout, so a slow attempt is not sent twice", () => {
    expect(configProblems(configWith({ callbacks: { leaseMs: 15_000, timeoutMs: 15_000 } }))).toEqual([
      "CALLBACK_LEASE_MS must be longer than CALLBACK_TIMEOUT_MS",
    ]);
    expect(configProblems(configWith({ callbacks: { leaseMs: 15_001, timeoutMs: 15_000 } }))).toEqual([]);
  });
});

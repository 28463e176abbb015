import { describe, expect, it } from "vitest";

import { configProblems } from "./config-checks";
import { readConfig } from "./config-schema";
import { EnvReader } from "./env-reader";
import { VariableParser } from "./variable-parser";

const read = (env: Record<string, string>) => readConfig(new VariableParser(new EnvReader(env)));

describe("transport security settings", () => {
  it("requires HTTPS by default in production on the API, not on the worker, not in development", () => {
    expect(read({ APP_MODE: "production" }).http.requireHttps).toBe(true);
    expect(read({ APP_MODE: "production", APP_ROLE: "api" }).http.requireHttps).toBe(true);
    expect(read({ APP_MODE: "production", APP_ROLE: "worker" }).http.requireHttps).toBe(false);
    expect(read({ APP_MODE: "production", REQUIRE_HTTPS: "false" }).http.requireHttps).toBe(false);
    expect(read({}).http.requireHttps).toBe(false);
    expect(read({ REQUIRE_HTTPS: "true" }).http.requireHttps).toBe(true);
  });

  it("takes TLS_CERT_FILE and TLS_KEY_FILE together only", () => {
    expect(configProblems(read({ TLS_CERT_FILE: "/run/tls/cert.pem" }))).toContain("TLS_CERT_FILE and TLS_KEY_FILE go together: set both or neither");
    expect(configProblems(read({ TLS_CERT_FILE: "/run/tls/cert.pem", TLS_KEY_FILE: "/run/tls/key.pem" }))).toEqual([]);
  });

  it("takes addresses, CIDR ranges and Express's keywords in TRUST_PROXY, and refuses anything else", () => {
    const good = read({ TRUST_PROXY: "loopback, uniquelocal,10.0.0.0/8,192.168.1.10,fd00::/8" });
    expect(good.http.trustProxy).toEqual(["loopback", "uniquelocal", "10.0.0.0/8", "192.168.1.10", "fd00::/8"]);
    expect(configProblems(good)).toEqual([]);
    const problems = configProblems(read({ TRUST_PROXY: "true,10.0.0.0/33,proxy.internal" }));
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^TRUST_PROXY entry "true" is not/);
  });

  it("closes slow requests after 15 s of headers and 60 s in all by default; the headers' time cannot be the longer", () => {
    expect(read({}).http).toMatchObject({ headersTimeoutMs: 15_000, requestTimeoutMs: 60_000 });
    const short = read({ HTTP_HEADERS_TIMEOUT_MS: "500", HTTP_REQUEST_TIMEOUT_MS: "1000" });
    expect(short.http).toMatchObject({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    expect(configProblems(short)).toEqual([]);
    expect(configProblems(read({ HTTP_HEADERS_TIMEOUT_MS: "20000", HTTP_REQUEST_TIMEOUT_MS: "10000" }))).toEqual([
      "HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS",
    ]);
  });
});

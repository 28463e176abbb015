import { describe, expect, it } from "vitest";

import { configProblems } from "./config-checks";
import { readConfig } from "./config-schema";
import { EnvReader } from "./env-reader";
import { VariableParser } from "./variable-parser";

const read = (env: Record<string, string>) => readConfig(new VariableParser(new EnvReader(env)));

describe("transport security settings", () => {
  it("requires HTTPS by default in production for every role (the worker's operations endpoints take the admin credential), not in development", () => {
    expect(read({ APP_MODE: "production" }).http.requireHttps).toBe(true);
    expect(read({ APP_MODE: "production", APP_ROLE: "api" }).http.requireHttps).toBe(true);
    expect(read({ APP_MODE: "production", APP_ROLE: "worker" }).http.requireHttps).toBe(true);
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

  it("listens on 127.0.0.1 unless HOST says otherwise, which must be an address; the operations port is not the API's", () => {
    expect(read({}).app).toMatchObject({ host: "127.0.0.1", port: 3000, opsPort: 9464 });
    expect(read({ HOST: "0.0.0.0", OPS_PORT: "9100" }).app).toMatchObject({ host: "0.0.0.0", opsPort: 9100 });
    expect(configProblems(read({ HOST: "::" }))).toEqual([]);
    expect(configProblems(read({ HOST: "localhost" }))).toEqual(['HOST must be an IP address to listen on (127.0.0.1, 0.0.0.0, ::), got "localhost"']);
    expect(configProblems(read({ PORT: "9464" }))).toEqual([
      "OPS_PORT must differ from PORT (both 9464): the operations endpoints are served apart from the API",
    ]);
    // A worker has one port, its operations port; a port of 0 is any free one.
    expect(configProblems(read({ PORT: "9464", APP_ROLE: "worker" }))).toEqual([]);
    expect(configProblems(read({ PORT: "0", OPS_PORT: "0" }))).toEqual([]);
  });

  it("keeps the queue dashboard read-only and allows 10 wrong admin passwords per client IP per 5 minutes by default", () => {
    expect(read({}).admin).toMatchObject({ queueWrite: false, failedSignIns: { points: 10, durationSeconds: 300 } });
    expect(read({ ADMIN_QUEUE_WRITE: "true", ADMIN_MAX_FAILED_SIGN_INS: "3", ADMIN_FAILED_SIGN_IN_WINDOW_SECONDS: "60" }).admin).toMatchObject({
      queueWrite: true,
      failedSignIns: { points: 3, durationSeconds: 60 },
    });
  });
});

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
});

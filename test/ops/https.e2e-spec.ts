import { X509Certificate } from "node:crypto";
import { renameSync, writeFileSync } from "node:fs";
import { connect } from "node:tls";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { generateTestTls, readTestServerTls, type TestTlsFiles, writeTestTls } from "../support/test-ca";
import { eventually } from "../support/test-chain";
import { startTestApp, type TestApp } from "../support/test-app";

/** The SHA-256 fingerprint of the certificate the server presents in a TLS handshake. */
function servedFingerprint(baseUrl: string): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false, servername: "localhost" }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? "");
      socket.end();
    });
    socket.on("error", reject);
  });
}

const fingerprintOf = (pem: string) => new X509Certificate(pem).fingerprint256;

/** Replaces a file the way certificate tooling does: a new file renamed over the old one. */
function replaceFile(path: string, content: string): void {
  writeFileSync(`${path}.new`, content);
  renameSync(`${path}.new`, path);
}

describe("HTTPS served directly (TLS_CERT_FILE, TLS_KEY_FILE)", () => {
  let files: TestTlsFiles;
  let testApp: TestApp;

  beforeAll(async () => {
    // The Vitest global setup's CA is trusted through NODE_EXTRA_CA_CERTS: fetch checks the certificate for real.
    files = writeTestTls(readTestServerTls());
    testApp = await startTestApp({ TLS_CERT_FILE: files.certFile, TLS_KEY_FILE: files.keyFile });
  });

  afterAll(async () => {
    await testApp?.close();
    files?.remove();
  });

  it("answers over HTTPS with HSTS, and the API as before", async () => {
    expect(testApp.baseUrl).toMatch(/^https:/);
    const live = await fetch(`${testApp.baseUrl}/health/live`);
    expect(live.status).toBe(200);
    expect(live.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    const forbidden = await fetch(`${testApp.baseUrl}/api/v1/chain`);
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toStrictEqual({ message: "Forbidden" });
    const { api } = await testApp.client();
    expect((await api.get("/api/v1/chain")).status).toBe(200);
  });

  it("serves a renewed certificate without a restart, and keeps the current one while the pair does not match", async () => {
    const first = readTestServerTls();
    expect(await servedFingerprint(testApp.baseUrl)).toBe(fingerprintOf(first.cert));
    const renewed = await generateTestTls();

    // The certificate first, its key not yet: the pair does not match, the current certificate stays.
    replaceFile(files.certFile, renewed.cert);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await servedFingerprint(testApp.baseUrl)).toBe(fingerprintOf(first.cert));
    expect((await fetch(`${testApp.baseUrl}/health/live`)).status).toBe(200);

    replaceFile(files.keyFile, renewed.key);
    await eventually(
      async () => ((await servedFingerprint(testApp.baseUrl)) === fingerprintOf(renewed.cert) ? true : undefined),
      10_000,
      "the renewed certificate to be served",
    );
  });
});

describe("behind a TLS-terminating proxy (REQUIRE_HTTPS, TRUST_PROXY)", () => {
  let trusted: TestApp;
  let untrusted: TestApp;

  beforeAll(async () => {
    [trusted, untrusted] = await Promise.all([
      startTestApp({ REQUIRE_HTTPS: "true", TRUST_PROXY: "loopback" }),
      // The proxy is elsewhere: X-Forwarded-Proto from 127.0.0.1 is not believed.
      startTestApp({ REQUIRE_HTTPS: "true", TRUST_PROXY: "10.0.0.0/8" }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([trusted?.close(), untrusted?.close()]);
  });

  it("refuses a request that did not arrive over HTTPS with 400 https_required, before the key or the body", async () => {
    const { key } = await trusted.organization();
    for (const headers of [{}, { "x-forwarded-proto": "http" }, { "x-api-key": key }] as Record<string, string>[]) {
      const answer = await fetch(`${trusted.baseUrl}/api/v1/sold`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "[]" });
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({ status: "error", error: { code: "https_required", message: expect.stringContaining("HTTPS") } });
      expect(answer.headers.get("strict-transport-security")).toBeNull();
    }
  });

  it("serves a request the trusted proxy says came over HTTPS, with HSTS", async () => {
    const { key } = await trusted.organization();
    const viaProxy = { "x-forwarded-proto": "https", "x-forwarded-for": "203.0.113.7" };
    const chain = await fetch(`${trusted.baseUrl}/api/v1/chain`, { headers: { ...viaProxy, "x-api-key": key } });
    expect(chain.status).toBe(200);
    expect(chain.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    const forbidden = await fetch(`${trusted.baseUrl}/api/v1/chain`, { headers: viaProxy });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toStrictEqual({ message: "Forbidden" });
  });

  it("does not believe X-Forwarded-Proto from an address outside TRUST_PROXY", async () => {
    const answer = await fetch(`${untrusted.baseUrl}/api/v1/chain`, { headers: { "x-forwarded-proto": "https" } });
    expect(answer.status).toBe(400);
    expect((await answer.json()).error.code).toBe("https_required");
  });

  it("leaves the health probes on plain HTTP (the kubelet and the load balancer's checks come from inside)", async () => {
    for (const path of ["/health/live", "/health/ready", "/health"]) expect((await fetch(trusted.baseUrl + path)).status, path).toBe(200);
  });
});

import { request as httpRequest } from "node:http";
import type { Socket } from "node:net";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { adminHeaders, TEST_ADMIN_PASSWORD } from "../support/metrics-scrape";
import { startTestApp, type TestApp } from "../support/test-app";

/**
 * What happens before a request reaches its route: the API key and the rate limit are checked
 * before the body is read, on every method and path; /metrics and /admin want the admin
 * credential; every answer carries the security headers.
 */

const FORBIDDEN = { message: "Forbidden" };
const MIB = 1024 * 1024;
/** One 64 KiB piece of a body, sent again and again: the client keeps no 14 MiB buffer of its own. */
const CHUNK = Buffer.alloc(64 * 1024, "[");

let testApp: TestApp;
/** Bytes the server has read from each connection it accepted, by the client's local port. */
const serverSockets = new Map<number, Socket>();

beforeAll(async () => {
  testApp = await startTestApp({ RATE_LIMIT_REQUESTS: "3", RATE_LIMIT_WINDOW_SECONDS: "60" });
  testApp.app.getHttpServer().on("connection", (socket: Socket) => serverSockets.set(socket.remotePort ?? 0, socket));
});

afterAll(async () => {
  await testApp?.close();
});

interface PartialUpload {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Body bytes the client had handed to its socket when the answer's head arrived. */
  sentWhenAnswered: number;
  /** Body bytes the server read from the connection, all told (headers excluded, roughly). */
  serverRead: number;
  /** Whether the server closed the connection before the client had sent the whole body. */
  closedEarly: boolean;
}

/**
 * Announces a body of `declaredBytes` and sends only its first 64 KiB, waits for the answer, then
 * tries to send the rest: the answer must come without the body, and the rest must not be read.
 */
function partialUpload(method: string, path: string, declaredBytes: number, headers: Record<string, string> = {}): Promise<PartialUpload> {
  const url = new URL(testApp.baseUrl + path);
  return new Promise((resolve, reject) => {
    let sent = 0;
    let finished = false;
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: { "content-type": "application/json", "content-length": declaredBytes, ...headers },
      },
      (response) => {
        const sentWhenAnswered = sent;
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (data: string) => (body += data));
        response.on("end", () => {
          const socket = request.socket;
          const serverSocket = serverSockets.get(socket?.localPort ?? -1);
          // The rest of the body, as fast as the connection takes it: the server must not read it.
          const sendRest = () => {
            while (!request.destroyed && sent < declaredBytes) {
              const piece = CHUNK.subarray(0, Math.min(CHUNK.length, declaredBytes - sent));
              sent += piece.length;
              if (!request.write(piece)) return void request.once("drain", sendRest);
            }
            if (sent >= declaredBytes) request.end(() => (finished = true));
          };
          sendRest();
          const settle = () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body,
              sentWhenAnswered,
              serverRead: serverSocket?.bytesRead ?? -1,
              closedEarly: !finished,
            });
          request.on("error", () => undefined);
          // Either the server closes the connection (the client's socket closes), or we give up waiting.
          const timer = setTimeout(settle, 3_000);
          socket?.once("close", () => {
            clearTimeout(timer);
            setTimeout(settle, 50);
          });
        });
      },
    );
    request.on("error", (error) => {
      if (!finished && sent === 0) reject(error);
    });
    sent = CHUNK.length;
    request.write(CHUNK);
  });
}

/** A request with the path exactly as given: fetch would resolve dot segments and re-encode it first. */
function rawRequest(method: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(testApp.baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: url.hostname, port: url.port, path, method }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (data: string) => (body += data));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("no body without a key", () => {
  const paths = [
    "/api/v1/events",
    "/api/v1/sold",
    "/stream",
    "/api/v1/chain",
    "/api/v1/tickets/t-1",
    "/api/v1/actions/x",
    "/no-such-path",
    "/api/v1/nothing/here",
  ];

  it("answers exactly 403 {message: Forbidden} to every method on known and unknown paths without a key, body or not", async () => {
    const anonymous = apiClient(testApp.baseUrl);
    const wrongKey = apiClient(testApp.baseUrl, "trk_notakey_" + "x".repeat(43));
    for (const client of [anonymous, wrongKey]) {
      for (const path of paths) {
        for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
          const body = method === "GET" || method === "HEAD" ? undefined : "{not json";
          const response = await fetch(testApp.baseUrl + path, {
            method,
            headers: { "content-type": "application/json", ...(client === wrongKey ? { "x-api-key": "trk_notakey_" + "x".repeat(43) } : {}) },
            body,
          });
          expect(response.status, `${method} ${path}`).toBe(403);
          if (method !== "HEAD") expect(await response.json(), `${method} ${path}`).toStrictEqual(FORBIDDEN);
        }
      }
    }
  });

  it("keeps health and the docs public, and answers a key's unknown path with 404 not_found as before", async () => {
    for (const path of ["/health", "/health/live", "/health/ready", "/docs", "/docs-json"]) {
      expect((await fetch(testApp.baseUrl + path)).status, path).toBe(200);
    }
    const { api } = await testApp.client();
    const unknown = await api.request("PUT", "/no-such-path", { any: 1 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "not_found" } });
    const badJson = await api.request("POST", "/api/v1/sold", "{not json");
    expect(badJson).toMatchObject({ status: 400, body: { status: "error", error: { code: "invalid_json" } } });
  });

  it("lets through without a key only the exact paths of the docs and health: any other spelling gets the 403", async () => {
    const spellings = [
      "/docs/../api/v1/chain",
      "/docs/%2e%2e/api/v1/chain",
      "/docs/%2E%2E/",
      "/docs-json/../api/v1/chain",
      "//docs",
      "//docs-json",
      "/docs;x",
      "/docs-json/",
      "/DOCS-JSON",
      "/docs//swagger-ui.css",
      "/docs/./swagger-ui.css",
      "/docs/package.json",
      "/docs/swagger-ui.js",
      "/docs/oauth2-redirect.html",
      "/health/live/",
      "/health//live",
      "/Health/live",
    ];
    for (const path of spellings) {
      const answer = await rawRequest("GET", path);
      expect(answer.status, path).toBe(403);
      expect(JSON.parse(answer.body), path).toStrictEqual(FORBIDDEN);
    }
    // Swagger UI's page, with or without the slash, and every file it loads need no key.
    for (const page of ["/docs", "/docs/"]) {
      const html = await (await fetch(testApp.baseUrl + page)).text();
      const files = [...html.matchAll(/(?:src|href)=["']([^"']+)["']/g)].map((match) => new URL(match[1], testApp.baseUrl + page).pathname);
      expect(files.length, page).toBeGreaterThanOrEqual(6);
      for (const file of files) expect((await rawRequest("GET", file)).status, `${page}: ${file}`).toBe(200);
    }
  });

  it("answers a 14 MB body sent without a key with 403 before reading it, and closes the connection instead of reading the rest", async () => {
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const answer = await partialUpload(method, "/stream", 14 * MIB);
      expect(answer.status, method).toBe(403);
      expect(JSON.parse(answer.body)).toStrictEqual(FORBIDDEN);
      expect(answer.headers.connection).toBe("close");
      // The answer came while 64 KiB of the 14 MiB were sent: the server did not wait for the body.
      expect(answer.sentWhenAnswered).toBeLessThanOrEqual(64 * 1024);
      expect(answer.closedEarly, method).toBe(true);
      expect(answer.serverRead, method).toBeGreaterThan(0);
      // What the server read: the headers and the 64 KiB sent before the answer (about 65,700 bytes), none of the rest.
      expect(answer.serverRead, method).toBeLessThan(256 * 1024);
    }
    const grown = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore;
    // Four 14 MiB bodies parsed would be 56 MiB and more of strings; nothing of them was kept.
    expect(grown).toBeLessThan(24 * MIB);
  });

  it("counts the rate limit before the body: a key over its limit gets the 429 while its body is still on its way", async () => {
    const { key } = await testApp.organization();
    const api = apiClient(testApp.baseUrl, key);
    for (let i = 0; i < 3; i++) expect((await api.get("/api/v1/chain")).status).toBe(200);
    const answer = await partialUpload("POST", "/stream", 14 * MIB, { "x-api-key": key });
    expect(answer.status).toBe(429);
    expect(JSON.parse(answer.body)).toMatchObject({ status: "error", error: { code: "rate_limited" } });
    expect(Number(answer.headers["retry-after"])).toBeGreaterThan(0);
    expect(answer.headers["ratelimit-remaining"]).toBe("0");
    expect(answer.sentWhenAnswered).toBeLessThanOrEqual(64 * 1024);
    expect(answer.closedEarly).toBe(true);
    expect(answer.serverRead).toBeLessThan(256 * 1024);
  });

  it("counts each authenticated request once, whatever guards run after the middleware", async () => {
    const { key } = await testApp.organization();
    const api = apiClient(testApp.baseUrl, key);
    const remaining = [];
    for (let i = 0; i < 3; i++) remaining.push((await api.get("/api/v1/chain")).headers.get("ratelimit-remaining"));
    expect(remaining).toEqual(["2", "1", "0"]);
    expect((await api.post("/api/v1/sold", [])).status).toBe(429);
  });
});

describe("/metrics and /admin behind the admin credential", () => {
  it("asks for the admin credential (401, a Basic challenge), even with an API key, and serves the metrics to the admin", async () => {
    const { key } = await testApp.organization();
    for (const headers of [{}, { "x-api-key": key }, adminHeaders(`${TEST_ADMIN_PASSWORD}!`), adminHeaders(TEST_ADMIN_PASSWORD, "root")]) {
      const response = await fetch(`${testApp.opsUrl}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
      expect(await response.text()).not.toContain("ticket_registry_");
    }
    const scrape = await fetch(`${testApp.opsUrl}/metrics`, { headers: adminHeaders() });
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain("ticket_registry_http_request_duration_seconds");
    expect((await fetch(`${testApp.opsUrl}/admin/anything`, { method: "POST", body: "x".repeat(1024) })).status).toBe(401);
  });
});

describe("security headers", () => {
  const expectApiHeaders = (headers: Headers, what: string) => {
    expect(headers.get("x-content-type-options"), what).toBe("nosniff");
    expect(headers.get("x-powered-by"), what).toBeNull();
    expect(headers.get("cache-control"), what).toContain("no-store");
    expect(headers.get("x-frame-options"), what).toBe("DENY");
    expect(headers.get("content-security-policy"), what).toContain("frame-ancestors 'none'");
    expect(headers.get("referrer-policy"), what).toBe("no-referrer");
    // Plain HTTP without REQUIRE_HTTPS: no HSTS (browsers ignore it over HTTP anyway).
    expect(headers.get("strict-transport-security"), what).toBeNull();
  };

  it("on API answers, errors, refusals and health: nosniff, no X-Powered-By, no-store, no framing", async () => {
    const { api } = await testApp.client();
    expectApiHeaders((await api.get("/api/v1/chain")).headers, "200");
    expectApiHeaders((await api.request("POST", "/api/v1/sold", "{not json")).headers, "400");
    expectApiHeaders((await api.get("/no-such-path")).headers, "404");
    expectApiHeaders((await fetch(`${testApp.baseUrl}/api/v1/chain`)).headers, "403");
    expectApiHeaders((await fetch(`${testApp.baseUrl}/health/ready`)).headers, "health");
    expectApiHeaders((await fetch(`${testApp.baseUrl}/docs-json`)).headers, "docs-json");
  });

  it("lets the Swagger UI page load its own scripts and styles, and nothing from elsewhere", async () => {
    const page = await fetch(`${testApp.baseUrl}/docs`);
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("upgrade-insecure-requests");
    expect(page.headers.get("x-powered-by")).toBeNull();
    const html = await page.text();
    for (const [, src] of html.matchAll(/<script src="([^"]+)"/g)) {
      const script = await fetch(new URL(src, `${testApp.baseUrl}/docs`));
      expect(script.status, src).toBe(200);
      expect(script.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });
});

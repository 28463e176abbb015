import type { Response } from "express";
import { describe, expect, it, vi } from "vitest";

import type { AuthService } from "../auth/auth.service";
import type { AuthenticatedRequest } from "../auth/authenticated-organization";
import type { RateLimiter } from "../auth/rate-limiter";
import { apiKeyFirst } from "./api-key-first";

const ORGANIZATION = { id: "o", ticketeerId: "t", name: "n", keyPrefix: "p", keyScope: "full" };
const ROUTES = [
  { pattern: "/health/live", methods: new Set(["get"]) },
  { pattern: "/verify/:ticketId", methods: new Set(["get"]) },
];

/** `lookup` is the key's: its organization, null for no live key, or the 403 body of a live key refused. */
function run(options: { method?: string; url?: string; headers?: Record<string, string>; lookup?: () => Promise<unknown>; overLimit?: boolean }) {
  const admit = async () => {
    const found = await (options.lookup ?? (async () => null))();
    if (found === null) return { refused: { message: "Forbidden" } };
    return typeof found === "object" && "message" in found ? { refused: found } : { admitted: found };
  };
  const auth = { admit: vi.fn(admit) } as unknown as AuthService;
  const limiter = {
    consume: vi.fn(async () => (options.overLimit ? { code: "rate_limited", message: "slow down" } : null)),
  } as unknown as RateLimiter;
  const request = {
    method: options.method ?? "POST",
    originalUrl: options.url ?? "/api/v1/sold",
    headers: options.headers ?? {},
    complete: false,
    readableLength: 0,
  } as unknown as AuthenticatedRequest;
  const headers: Record<string, unknown> = {};
  return new Promise<{ next: boolean; status?: number; body?: unknown; headers: Record<string, unknown>; request: AuthenticatedRequest }>((resolve) => {
    const response = {
      setHeader: (name: string, value: unknown) => (headers[name.toLowerCase()] = value),
      status: (status: number) => ({ json: (body: unknown) => resolve({ next: false, status, body, headers, request }) }),
    } as unknown as Response;
    apiKeyFirst(auth, limiter, () => ROUTES)(request, response, () => resolve({ next: true, headers, request }));
  });
}

describe("apiKeyFirst", () => {
  it("lets public routes and the docs through without a key", async () => {
    expect((await run({ method: "GET", url: "/health/live" })).next).toBe(true);
    expect((await run({ method: "GET", url: "/docs/swagger-ui.css" })).next).toBe(true);
    expect((await run({ method: "GET", url: "/docs-json" })).next).toBe(true);
    expect((await run({ method: "POST", url: "/health/live", headers: { "content-length": "10" } })).status).toBe(403);
    expect((await run({ method: "GET", url: "/docsx" })).status).toBe(403);
  });

  it("lets through without a key only the exact paths of the docs and of the public routes", async () => {
    const keyless = [
      "/docs",
      "/docs/",
      "/docs/index.html",
      "/docs/swagger-ui.css",
      "/docs/swagger-ui-bundle.js",
      "/docs/swagger-ui-standalone-preset.js",
      "/docs/swagger-ui-init.js",
      "/docs/favicon-32x32.png",
      "/docs/favicon-16x16.png",
      "/docs-json",
      "/docs-yaml",
      "/docs-json?x=1",
      "/health/live",
      "/verify/t-1",
      "/verify/t%201",
    ];
    for (const url of keyless) expect((await run({ method: "GET", url })).next, url).toBe(true);
    expect((await run({ method: "HEAD", url: "/docs-json" })).next).toBe(true);
    const refused = [
      "/docs/../api/v1/chain",
      "/docs/%2e%2e/api/v1/chain",
      "/docs/%2E%2E/api/v1/chain",
      "/docs/.%2e/api/v1/chain",
      "/docs/x/../../api/v1/chain",
      "/docs-json/../api/v1/chain",
      "/docs-json/..%2fapi/v1/chain",
      "/docs/./swagger-ui.css",
      "/docs//swagger-ui.css",
      "//docs",
      "//docs-json",
      "/docs;x",
      "/docs-json;x",
      "/docs-json/",
      "/docs-jsonx",
      "/docs-json.x",
      "/DOCS-JSON",
      "/Docs",
      "/docs/%73wagger-ui.css",
      "/docs/package.json",
      "/docs/swagger-ui.js",
      "/docs/oauth2-redirect.html",
      "/docs/LICENSE",
      "/docs/docs/swagger-ui-init.js",
      "/docs\\..\\api/v1/chain",
      "/health/live/",
      "/health//live",
      "/Health/live",
      "/health/live/..",
      "/health/live/../../api/v1/chain",
      "/verify/..",
      "/verify/%2e%2e",
      "/verify/.",
      "/verify/t-1/",
      "/verify//t-1",
      "http://localhost/docs-json",
      "*",
    ];
    for (const url of refused) {
      expect(await run({ method: "GET", url }), url).toMatchObject({ next: false, status: 403, body: { message: "Forbidden" } });
    }
    expect((await run({ method: "POST", url: "/docs-json" })).status).toBe(403);
  });

  it("refuses without a key with exactly 403 {message: Forbidden}, closing the connection when a body is on its way", async () => {
    const refused = await run({ headers: { "content-length": "14000000" } });
    expect(refused).toMatchObject({ next: false, status: 403, body: { message: "Forbidden" }, headers: { connection: "close" } });
    expect((await run({ method: "GET", url: "/nothing" })).headers.connection).toBeUndefined();
  });

  it("answers a key over its limit with the 429, and a key that cannot be checked with a 503 (database unreachable) or a 500, all unread", async () => {
    const key = { "x-api-key": "k".repeat(40), "transfer-encoding": "chunked" };
    const limited = await run({ headers: key, lookup: async () => ORGANIZATION, overLimit: true });
    expect(limited).toMatchObject({ status: 429, body: { status: "error", error: { code: "rate_limited" } }, headers: { connection: "close" } });
    const unreachable = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const unavailable = await run({ headers: key, lookup: () => Promise.reject(unreachable) });
    expect(unavailable).toMatchObject({
      status: 503,
      body: { status: "error", error: { code: "service_unavailable" } },
      headers: { connection: "close", "retry-after": expect.stringMatching(/^[1-9]\d*$/) },
    });
    const failed = await run({ headers: key, lookup: () => Promise.reject(new Error('relation "api_keys" does not exist')) });
    expect(failed).toMatchObject({ status: 500, body: { status: "error", error: { code: "internal_error" } }, headers: { connection: "close" } });
  });

  it("answers a live key refused (used from outside its IP ranges) with its 403 body, unread", async () => {
    const refused = { message: "Forbidden", code: "key_ip" };
    const answer = await run({ headers: { "x-api-key": "k".repeat(40), "content-length": "20" }, lookup: async () => refused });
    expect(answer).toMatchObject({ next: false, status: 403, body: refused, headers: { connection: "close" } });
    expect(answer.request.organization).toBeUndefined();
  });

  it("passes a valid key within its limit on, authenticated", async () => {
    const passed = await run({ headers: { "x-api-key": "k".repeat(40) }, lookup: async () => ORGANIZATION });
    expect(passed.next).toBe(true);
    expect(passed.request.organization).toEqual(ORGANIZATION);
  });
});

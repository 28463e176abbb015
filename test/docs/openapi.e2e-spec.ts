import { readFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { ERROR_CODES } from "../../src/common/errors/error-detail";
import { startTestApp, type TestApp } from "../support/test-app";

const COMMITTED = JSON.parse(readFileSync(join(__dirname, "..", "..", "openapi.json"), "utf8"));

let testApp: TestApp;

beforeAll(async () => {
  testApp = await startTestApp();
});

afterAll(async () => {
  await testApp?.close();
});

describe("API documentation", () => {
  it("serves the committed openapi.json at /docs-json (run `npm run openapi` after an API change)", async () => {
    const response = await fetch(`${testApp.baseUrl}/docs-json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(COMMITTED);
  });

  it("names every operation with a unique, generator-friendly operationId", () => {
    const ids = Object.values<Record<string, { operationId: string }>>(COMMITTED.paths).flatMap((operations) =>
      Object.values(operations).map((operation) => operation.operationId),
    );
    for (const operationId of ids) expect(operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(["registerEvent", "registerSales", "streamActions", "getActionStatus"]));
  });

  it("documents the public ticket page as HTML without a key", () => {
    const page = COMMITTED.paths["/verify/{ticketId}"].get;
    expect(page.security).toBeUndefined();
    expect(Object.keys(page.responses)).toEqual(["200", "400", "404", "413", "415", "429", "500", "503"]);
    expect(Object.keys(page.responses["400"].content)).toEqual(["text/html", "application/json"]);
    expect(Object.keys(page.responses["200"].content)).toEqual(["text/html"]);
  });

  it("documents the token metadata as public JSON, cacheable, with its 404 and 503", () => {
    for (const path of ["/tokens/{tokenId}", "/tokens/collection"]) {
      const { get, options } = COMMITTED.paths[path];
      expect(get.security, path).toBeUndefined();
      expect(Object.keys(get.responses["200"].content), path).toEqual(["application/json"]);
      const headers = ["ETag", "Cache-Control", "Access-Control-Allow-Origin", ...(path === "/tokens/{tokenId}" ? ["X-Metadata-Hash"] : [])];
      expect(Object.keys(get.responses["200"].headers), path).toEqual(headers);
      expect(Object.keys(get.responses), path).toEqual(expect.arrayContaining(["200", "304", "429", "503"]));
      expect(Object.keys(options.responses), path).toEqual(["204"]);
    }
    expect(Object.keys(COMMITTED.paths["/tokens/{tokenId}"].get.responses)).toEqual(expect.arrayContaining(["400", "404"]));
  });

  it("serves Swagger UI at /docs without an API key", async () => {
    const response = await fetch(`${testApp.baseUrl}/docs`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("swagger");
  });

  it("documents the X-Api-Key scheme, the 403 body and every error code", () => {
    expect(COMMITTED.components.securitySchemes["api-key"]).toMatchObject({ type: "apiKey", in: "header", name: "X-Api-Key" });
    expect(COMMITTED.components.schemas.ErrorDetailDto.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(COMMITTED.components.schemas.ForbiddenBodyDto.properties.message.enum).toEqual(["Forbidden"]);
    for (const [path, operations] of Object.entries<Record<string, { security?: unknown; responses: Record<string, unknown> }>>(COMMITTED.paths)) {
      // Public, no key: health, the ticket pages (src/verify, @Public()) and the token metadata (src/tokens, @Public()).
      if (path === "/health" || path.startsWith("/health/") || path.startsWith("/verify/") || path.startsWith("/tokens/")) continue;
      for (const operation of Object.values(operations)) {
        expect(operation.security, path).toEqual([{ "api-key": [] }]);
        expect(Object.keys(operation.responses), path).toContain("403");
      }
    }
  });
});

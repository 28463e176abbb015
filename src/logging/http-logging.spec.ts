import type { AddressInfo } from "node:net";
import { request as httpRequest, type Server } from "node:http";
import { Writable } from "node:stream";

import express from "express";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { AuthenticatedRequest } from "../auth/authenticated-organization";
import { requestIdMiddleware } from "../common/http/request-id";
import { loadConfig } from "../config/app-config";
import { createHttpLogger } from "./http-logging";
import { loggerOptions } from "./logger-options";

const written: string[] = [];
const lines = () =>
  written
    .join("")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, any>);
let server: Server;
let base: string;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const logger = pino(loggerOptions(loadConfig({ APP_MODE: "test", LOG_LEVEL: "debug" })), sink);
  const app = express();
  app.use(requestIdMiddleware, createHttpLogger(logger));
  app.post("/stream", (request: AuthenticatedRequest, response) => {
    request.organization = { id: "o-1", ticketeerId: "ticketeer-1", name: "One", keyPrefix: "trk_AbCdEfGh", keyScope: "full" };
    request.log.info("inside the handler");
    response.json({ status: "success" });
  });
  app.get("/stream", (_request, response) => response.json({ status: "success" }));
  app.get("/health", (_request, response) => response.json({ status: "ok" }));
  app.get("/boom", (_request, response) => response.status(500).json({ status: "error" }));
  const mounted = express.Router();
  mounted.get("/", (_request, response) => response.send("dashboard"));
  app.use("/admin/queues", mounted);
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

/** The request's line: written when the response finishes, which may come a moment after the client has its answer. */
async function lineOf(requestId: string): Promise<Record<string, any> | undefined> {
  for (let tries = 0; tries < 100; tries++) {
    const line = lines().find((candidate) => candidate.requestId === requestId && candidate.res);
    if (line) return line;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

describe("the request logger", () => {
  it("logs a request under the request id it was given, with the organization and no API key", async () => {
    await fetch(`${base}/stream`, { method: "POST", headers: { "x-request-id": "given-id-1", "x-api-key": "trk_secret_value" } });
    const line = await lineOf("given-id-1");
    expect(line).toMatchObject({
      level: "info",
      requestId: "given-id-1",
      req: { id: "given-id-1", method: "POST", url: "/stream" },
      res: { statusCode: 200 },
      ticketeerId: "ticketeer-1",
    });
    expect(line?.msg).toMatch(/^POST \/stream 200 in \d+ ms$/);
    expect(lines().find((l) => l.msg === "inside the handler")).toMatchObject({ requestId: "given-id-1" });
    expect(written.join("")).not.toContain("trk_secret_value");
  });

  it("uses the id it generates and answers in x-request-id when none is given", async () => {
    const answer = await fetch(`${base}/health`);
    const requestId = answer.headers.get("x-request-id") as string;
    expect(await lineOf(requestId)).toMatchObject({ level: "debug", req: { id: requestId, url: "/health" } });
  });

  it("names a request by the URL the client sent, also under a mounted router", async () => {
    await fetch(`${base}/admin/queues`, { headers: { "x-request-id": "mounted-1" } });
    expect(await lineOf("mounted-1")).toMatchObject({ msg: expect.stringMatching(/^GET \/admin\/queues 200 in/), req: { url: "/admin/queues" } });
  });

  it("logs server errors at error level", async () => {
    await fetch(`${base}/boom`, { headers: { "x-request-id": "boom-1" } });
    expect(await lineOf("boom-1")).toMatchObject({ level: "error", res: { statusCode: 500 } });
  });
});

/** Sends a raw request line (no client-side URL normalization): the path exactly as given. */
function rawGet(path: string, headers: Record<string, string>): Promise<number> {
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, headers }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("keys sent in the wrong place", () => {
  /** Each variant: the path (`$KEY` stands for the key) and the headers that carry it. */
  const variants: { path: string; headers?: Record<string, string>; format?: true }[] = [
    { path: "/stream?apiKey=$KEY" },
    { path: "/stream?x-api-key=$KEY" },
    { path: "/stream?api_key=$KEY" },
    { path: "/stream", headers: { "X-Api_Key": "$KEY" } },
    { path: "/stream?token=$KEY" },
    { path: "/stream?Access_Token=$KEY" },
    { path: "/stream", headers: { Authorization: "Bearer $KEY" } },
    { path: "/stream", headers: { "X-Auth-Token": "$KEY" } },
    { path: "/stream?password=$KEY" },
    { path: "/stream?api%5Fkey=$KEY" },
    { path: "/stream?API-KEY=$KEY&limit=5" },
    { path: "/stream?limit=5&ApiKey=$KEY&cursor=abc" },
    { path: "/stream?apikey[]=$KEY" },
    { path: "/stream?client.secret=$KEY" },
    { path: "/stream?X%2DAPI%2DKEY=$KEY" },
    { path: "/stream?signature=$KEY" },
    { path: "/stream", headers: { "X-Hub-Signature": "$KEY" } },
    { path: "/stream", headers: { Cookie: "session=$KEY" } },
    { path: "/stream", headers: { "X-Session-Token": "$KEY" } },
    { path: "/stream", headers: { APIKEY: "$KEY" } },
    // A key under a harmless name, or hidden in the path: recognized by its format.
    { path: "/stream?q=$KEY", format: true },
    { path: "/stream?limit=1;apiKey=$KEY" },
    { path: "/api/v1/tickets/$KEY", format: true },
    { path: "/stream?$KEY", format: true },
    { path: "/stream?note=see%20$KEY", format: true },
    // Unrouted (404) and failed (500) requests are logged too.
    { path: "/no-such-path?apiKey=$KEY" },
    { path: "/boom?access_token=$KEY" },
  ];

  /**
   * The secret of one variant, different for each so that a leak names its variant: an opaque token
   * (what only the name can give away), or a key in this service's format where the variant hides it
   * under a harmless name.
   */
  const keyFor = (variant: number) => {
    const tag = `Wr0ngPl${String(variant).padStart(3, "0")}`;
    return variants[variant].format ? `trk_${tag}_${"s".repeat(43)}` : `${tag}${"z".repeat(24)}`;
  };

  it("logs none of them, in the url, the query, the headers or the message", async () => {
    const ids: string[] = [];
    for (const [index, variant] of variants.entries()) {
      const key = keyFor(index);
      const headers = Object.fromEntries(Object.entries(variant.headers ?? {}).map(([name, value]) => [name, value.replace("$KEY", key)]));
      const requestId = `wrong-place-${index}`;
      ids.push(requestId);
      await rawGet(variant.path.replace("$KEY", key), { ...headers, "x-request-id": requestId });
    }
    for (const id of ids) expect(await lineOf(id), id).toBeDefined();
    const output = written.join("");
    const leaked = variants.filter((_variant, index) => output.includes(keyFor(index))).map((variant) => JSON.stringify(variant));
    expect(leaked).toEqual([]);
    // Not a blanket: what is no secret stays readable.
    expect((await lineOf("wrong-place-11"))?.req).toMatchObject({ url: "/stream?limit=5&ApiKey=[redacted]&cursor=abc", query: { limit: "5", cursor: "abc" } });
  });

  it("keeps what is not a secret readable", async () => {
    await rawGet("/stream?limit=5&cursor=abc", { "x-request-id": "readable-1", "idempotency-key": "order-17", "user-agent": "probe/1" });
    const line = await lineOf("readable-1");
    expect(line?.req).toMatchObject({
      url: "/stream?limit=5&cursor=abc",
      query: { limit: "5", cursor: "abc" },
      headers: { "idempotency-key": "order-17", "user-agent": "probe/1" },
    });
    expect(line?.msg).toMatch(/^GET \/stream\?limit=5&cursor=abc /);
  });
});

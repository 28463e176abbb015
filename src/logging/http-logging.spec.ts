import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
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
    request.organization = { id: "o-1", ticketeerId: "ticketeer-1", name: "One", keyPrefix: "trk_AbCdEfGh" };
    request.log.info("inside the handler");
    response.json({ status: "success" });
  });
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

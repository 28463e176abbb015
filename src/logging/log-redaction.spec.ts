import { Writable } from "node:stream";

import pino from "pino";
import { describe, expect, it } from "vitest";

import { loadConfig } from "../config/app-config";
import { REDACTED } from "./log-redaction";
import { loggerOptions, pinoLevelOf } from "./logger-options";

/** A logger built exactly as the service builds it, writing its lines to an array. */
function capturedLogger(env: Record<string, string> = {}): { logger: pino.Logger; lines: () => Record<string, any>[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  const logger = pino(loggerOptions(loadConfig({ APP_MODE: "test", LOG_LEVEL: "debug", ...env })), sink);
  return {
    logger,
    lines: () =>
      written
        .join("")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line)),
  };
}

describe("log redaction", () => {
  it("hides credentials and signatures in logged request and response headers", () => {
    const { logger, lines } = capturedLogger();
    logger.info(
      {
        req: {
          headers: {
            "x-api-key": "trk_live_key",
            authorization: "Basic YWRtaW46c2VjcmV0",
            cookie: "session=abc",
            "webhook-signature": "v1,c2lnbmF0dXJl",
            "x-request-id": "r-1",
          },
        },
        res: { headers: { "set-cookie": "session=def", "x-request-id": "r-1" } },
      },
      "request",
    );
    const [line] = lines();
    expect(line.req.headers).toEqual({
      "x-api-key": REDACTED,
      authorization: REDACTED,
      cookie: REDACTED,
      "webhook-signature": REDACTED,
      "x-request-id": "r-1",
    });
    expect(line.res.headers).toEqual({ "set-cookie": REDACTED, "x-request-id": "r-1" });
  });

  it("hides fields named like secrets at the top level and one object down, in child loggers too", () => {
    const { logger, lines } = capturedLogger();
    logger
      .child({ context: "Test" })
      .warn({ apiKey: "k1", webhookSecret: "whsec_x", config: { privateKey: "0xabc", databaseUrl: "postgres://u:p@h/db", port: 3000 } }, "careless");
    const text = JSON.stringify(lines());
    for (const secret of ["k1", "whsec_x", "0xabc", "postgres://u:p@h/db"]) expect(text).not.toContain(secret);
    expect(lines()[0].config.port).toBe(3000);
  });

  it("hides the values of a failed query logged as an error", () => {
    const { logger, lines } = capturedLogger();
    const error = Object.assign(new Error("insert failed"), {
      query: "INSERT INTO webhook_secrets ...",
      parameters: ["org-1", "whsec_c2VjcmV0c2VjcmV0c2VjcmV0"],
    });
    logger.error({ err: error }, "boot failed");
    expect(JSON.stringify(lines())).not.toContain("whsec_c2VjcmV0c2VjcmV0c2VjcmV0");
    expect(lines()[0].err).toMatchObject({ message: "insert failed", parameters: REDACTED });
  });

  it("writes one JSON object per line with a level name, an ISO time and the role", () => {
    const { logger, lines } = capturedLogger({ APP_ROLE: "worker" });
    logger.info("hello");
    logger.debug("details");
    expect(lines()).toMatchObject([
      { level: "info", role: "worker", msg: "hello" },
      { level: "debug", msg: "details" },
    ]);
    expect(new Date(lines()[0].time).toISOString()).toBe(lines()[0].time);
  });

  it("maps LOG_LEVEL to pino's levels", () => {
    expect(pinoLevelOf("verbose")).toBe("trace");
    expect(pinoLevelOf("info")).toBe("info");
    expect(() => pinoLevelOf("loud")).toThrow(/unknown log level/);
    const { logger, lines } = capturedLogger({ LOG_LEVEL: "warn" });
    logger.info("dropped");
    logger.warn("kept");
    expect(lines().map((line) => line.msg)).toEqual(["kept"]);
  });
});

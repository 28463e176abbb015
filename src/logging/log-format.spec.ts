import { Writable } from "node:stream";

import pino from "pino";
import { describe, expect, it } from "vitest";

import { loadConfig } from "../config/app-config";
import { logFormatOf, prettyStream } from "./log-format";
import { loggerOptions } from "./logger-options";

describe("logFormatOf", () => {
  it("is pretty for auto on a terminal and JSON for auto anywhere else", () => {
    expect(logFormatOf("auto", true)).toBe("pretty");
    expect(logFormatOf("auto", false)).toBe("json");
  });

  it("keeps an explicit json or pretty whatever stdout is", () => {
    expect(logFormatOf("json", true)).toBe("json");
    expect(logFormatOf("pretty", false)).toBe("pretty");
  });

  it("guesses from the terminal only in development: production and the tests log JSON unless LOG_FORMAT says otherwise", () => {
    expect(loadConfig({}).app.logFormat).toBe("auto");
    expect(loadConfig({ APP_MODE: "test" }).app.logFormat).toBe("json");
    expect(loadConfig({ APP_MODE: "test", LOG_FORMAT: "pretty" }).app.logFormat).toBe("pretty");
    expect(() => loadConfig({ LOG_FORMAT: "yaml" })).toThrow(/LOG_FORMAT/);
  });
});

describe("prettyStream", () => {
  it("writes one readable line per entry, with the context, the level's name, the fields below and the secrets redacted", () => {
    const written: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written.push(chunk.toString());
        done();
      },
    });
    const logger = pino(loggerOptions(loadConfig({ APP_MODE: "test" })), prettyStream(sink));

    logger.warn({ context: "ChainWriter", nonce: 7, apiKey: "trk_not-for-logs" }, "holding the flush");

    const [first, ...rest] = written.join("").split("\n");
    expect(first).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: \[ChainWriter\] holding the flush$/);
    expect(rest.join("\n")).toContain("nonce: 7");
    expect(written.join("")).not.toContain("trk_not-for-logs");
    expect(written.join("")).not.toMatch(/"role"|"pid"|^\{/m);
  });
});

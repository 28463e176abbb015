import pretty from "pino-pretty";

import type { LogFormatSetting } from "../config/app-config";

export type LogFormat = "json" | "pretty";

export function logFormatOf(setting: LogFormatSetting, stdoutIsTerminal: boolean): LogFormat {
  if (setting !== "auto") return setting;
  return stdoutIsTerminal ? "pretty" : "json";
}

/**
 * One line per entry for a person: local time, level, the logging class in brackets, the message,
 * and the other fields below it. `pid` and `role` are left out: under `npm start` each line is
 * prefixed with its process's role instead. Written synchronously on the main thread (no worker
 * transport), so the last lines before an exit are not lost.
 */
export function prettyStream(destination?: NodeJS.WritableStream): pretty.PrettyStream {
  return pretty({
    destination,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname,role,context",
    messageFormat: "{if context}[{context}] {end}{msg}",
    sync: true,
  });
}

import "reflect-metadata";

import { ConfigError, loadConfig } from "../config/app-config";
import { RefusedError, UsageError } from "./cli-errors";
import { parseCommandLine } from "./command-line";
import { note, print } from "./output";

/** The ops CLI: `npm run cli -- help`. */
async function main(args: readonly string[]): Promise<void> {
  const invocation = parseCommandLine(args);
  if (invocation.kind === "help") return print(invocation.text);
  const config = loadConfig();
  // Required only now, so that help and usage mistakes answer without loading TypeORM and Nest. A
  // require, not import(): a dynamic import of a .ts file bypasses the TypeScript runner's require hook.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runCommand } = require("./run-command") as typeof import("./run-command");
  await runCommand(config, invocation.command, invocation.input);
}

/** The operator's mistakes get a short answer; anything else is a fault and keeps its stack. */
function report(error: unknown): void {
  if (error instanceof UsageError) return note(`error: ${error.message}\n\n${error.usage}`);
  if (error instanceof RefusedError || error instanceof ConfigError) return note(`error: ${error.message}`);
  note(error instanceof Error ? (error.stack ?? error.message) : String(error));
}

// exitCode rather than exit(): stdout is fully flushed before the process ends.
main(process.argv.slice(2)).catch((error: unknown) => {
  report(error);
  process.exitCode = 1;
});

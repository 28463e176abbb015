import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, describe, expect, it } from "vitest";

import { NODE_LIFELINE_ARGS, spawnOwned, underShellLifeline } from "../../scripts/stack/owned-process";

describe("spawnOwned", () => {
  const logs = mkdtempSync(join(tmpdir(), "owned-process-"));

  afterAll(() => rmSync(logs, { recursive: true, force: true }));

  it("stops a Node child under NODE_LIFELINE_ARGS with SIGTERM when its stdin pipe closes", async () => {
    const child = spawnOwned({ name: "idle", command: process.execPath, args: [...NODE_LIFELINE_ARGS, "-e", "setInterval(() => undefined, 1000)"] });
    // The lifeline listens once the preload has run: wait for the process to be up, then cut it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(child.running()).toBe(true);
    child.child.stdin?.end();
    expect(await child.exited).toEqual({ code: null, signal: "SIGTERM" });
  });

  it("runs a program under the shell's lifeline as itself, and stops it when the pipe closes", async () => {
    const { command, args } = underShellLifeline("sleep", ["600"]);
    const child = spawnOwned({ name: "sleep", command, args });
    // After the shell's exec the owned pid is the program's.
    await expect.poll(() => readFileSync(`/proc/${child.pid}/comm`, "utf8").trim()).toBe("sleep");
    child.child.stdin?.end();
    expect((await child.exited).signal).toBe("SIGTERM");
  });

  it("appends the output to its log file", async () => {
    const logFile = join(logs, "echo.log");
    await spawnOwned({ name: "echo", command: "sh", args: ["-c", "echo one"], output: { file: logFile } }).exited;
    await spawnOwned({ name: "echo", command: "sh", args: ["-c", "echo two"], output: { file: logFile } }).exited;
    expect(readFileSync(logFile, "utf8")).toBe("one\ntwo\n");
  });

  it("kills the process group after the grace when the signal is ignored", async () => {
    const child = spawnOwned({ name: "stubborn", command: "sh", args: ["-c", 'trap "" TERM; sleep 600'] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await child.stop("SIGTERM", 300)).toEqual({ code: null, signal: "SIGKILL" });
    expect(existsSync(`/proc/${child.pid}`)).toBe(false);
  });
});

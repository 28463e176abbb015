import { execFile } from "node:child_process";

export interface ToolRun {
  /** The exit code (-1 when it was killed). */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program the tests need from outside npm's reach (promtool, kustomize): when it is not
 * installed, fails with `missing`, which says how to get it, so that a test never skips silently.
 */
export function runTool(binary: string, args: string[], options: { missing: string; cwd?: string }): Promise<ToolRun> {
  return new Promise((done, fail) => {
    execFile(binary, args, { cwd: options.cwd, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === "ENOENT") return fail(new Error(options.missing));
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

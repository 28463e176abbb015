import { execFile } from "node:child_process";

export interface PromtoolRun {
  code: number;
  output: string;
}

const MISSING =
  "promtool is not installed: it comes with Debian's prometheus package (apt-get install -y --no-install-recommends prometheus); " +
  ".ci/run installs it where it is missing";

/** Runs `promtool args` (Debian's prometheus package); a missing promtool fails the test, never skips it. */
export function promtool(args: string[], cwd?: string): Promise<PromtoolRun> {
  return new Promise((done, fail) => {
    execFile("promtool", args, { cwd, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && (error as NodeJS.ErrnoException).code === "ENOENT") return fail(new Error(MISSING));
      done({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

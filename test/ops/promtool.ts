import { runTool } from "../support/external-tool";

export interface PromtoolRun {
  code: number;
  output: string;
}

const MISSING =
  "promtool is not installed: it comes with Debian's prometheus package (apt-get install -y --no-install-recommends prometheus); " +
  ".ci/run installs it where it is missing";

/** Runs `promtool args` (Debian's prometheus package). */
export async function promtool(args: string[], cwd?: string): Promise<PromtoolRun> {
  const run = await runTool("promtool", args, { missing: MISSING, cwd });
  return { code: run.code, output: `${run.stdout}${run.stderr}` };
}

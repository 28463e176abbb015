import { spawn } from "node:child_process";

import { describe, expect, it } from "vitest";

import { parseScaleOptions } from "../../bench/scale-bench";
import { CpuSampler } from "../../bench/stack/cpu-usage";

/** Burns `ms` of this process's CPU time (not wall time: a busy machine gives it less CPU per second). */
const burnCpu = (ms: number) => {
  const from = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(from);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
};

describe("CpuSampler", () => {
  it("gives a named process, its own children and this process each their own CPU", async () => {
    // A named parent whose child burns 1 s of CPU: the child's time belongs to the parent's name (a
    // process that ends between two samples loses what it used since the last one, up to 100 ms here).
    const parent = spawn(process.execPath, [
      "-e",
      `require("node:child_process").spawn(process.execPath, ["-e", "const f = process.cpuUsage(); for (;;) { const u = process.cpuUsage(f); if (u.user + u.system >= 1e6) break; }"], { stdio: "inherit" }).on("exit", () => process.exit(0))`,
    ]);
    const sampler = new CpuSampler(() => [{ name: "worker-1", pid: parent.pid as number }]);
    sampler.start(100);
    // The samples are taken on this event loop: it stays free while the child runs.
    await new Promise((resolve) => parent.on("exit", resolve));
    burnCpu(500);
    const usage = sampler.stop();
    const seconds = (group: string) => usage.groups.find((entry) => entry.group === group)?.seconds ?? 0;
    expect(seconds("worker-1")).toBeGreaterThan(0.8);
    expect(seconds("this run (load generator)")).toBeGreaterThanOrEqual(0.49);
    expect(usage.wallSeconds).toBeGreaterThan(0.9);
    expect(usage.machineBusy).toBeGreaterThan(0);
  });
});

describe("npm run bench:scale options", () => {
  it("runs both parts by default and one configuration when asked", () => {
    expect(parseScaleOptions([])).toMatchObject({ parts: ["chain", "api"], signers: [1, 2, 4], workers: [1, 2], apis: [1, 2] });
    expect(parseScaleOptions(["--part", "chain", "--signers", "2", "--workers", "2"])).toMatchObject({
      parts: ["chain"],
      signers: [2],
      workers: [2],
      blocks: false,
    });
    expect(parseScaleOptions(["--part", "chain", "--blocks"])).toMatchObject({ blocks: true });
  });

  it("refuses more signers than the run has events, and unknown parts", () => {
    expect(() => parseScaleOptions(["--signers", "8"])).toThrow(/at most 4 signers/);
    expect(() => parseScaleOptions(["--part", "db"])).toThrow(/--part chain\|api/);
  });
});

import { readFileSync } from "node:fs";
import { basename } from "node:path";

/** The parts of a V8 `.cpuprofile` (as `node --cpu-prof` writes it) read here. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  share: number;
}

/**
 * Self time of a CPU profile by function and by file, the `top` largest each: the time a sample
 * spent in the function itself (not its callees), from the sample's time delta.
 */
export function summarizeCpuProfile(file: string, top = 15): { totalMs: number; byFunction: SelfTime[]; byFile: SelfTime[] } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const frame = frames.get(id);
    if (!frame) return;
    total += us;
    const where = shortUrl(frame.url);
    const name = `${frame.functionName || "(anonymous)"} ${where ? `${where}:${frame.lineNumber + 1}` : ""}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const fileKey = where || `(${frame.functionName || "native"})`;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
  });
  const rank = (map: Map<string, number>): SelfTime[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((1000 * us) / total) / 10 }));
  return { totalMs: Math.round(total / 1000), byFunction: rank(byFunction), byFile: rank(byFile) };
}

/** A frame's file as a path inside the project or a package (`node_modules/<package>/…`), or Node's own module. */
function shortUrl(url: string): string {
  if (!url) return "";
  const modules = url.lastIndexOf("node_modules/");
  if (modules >= 0) return url.slice(modules);
  for (const top of ["/src/", "/bench/", "/scripts/"]) {
    const at = url.lastIndexOf(top);
    if (at >= 0) return url.slice(at + 1);
  }
  return url.startsWith("node:") ? url : basename(url);
}

export function printCpuProfileSummary(file: string, top = 15): void {
  const summary = summarizeCpuProfile(file, top);
  console.log(`CPU profile ${file}: ${summary.totalMs} ms sampled; self time, top ${top} functions and files:`);
  console.table(summary.byFunction.map(({ name, ms, share }) => ({ function: name, "self ms": ms, "%": share })));
  console.table(summary.byFile.map(({ name, ms, share }) => ({ file: name, "self ms": ms, "%": share })));
}

/** `node -r @swc-node/register bench/cpu-profile-summary.ts <file.cpuprofile> [top]` */
if (require.main === module) printCpuProfileSummary(process.argv[2], Number(process.argv[3] ?? 15));

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import type { GasSnapshot } from "./measure-gas.js";

export const GAS_SNAPSHOT_PATH = join(import.meta.dirname, "..", "..", "gas-snapshot.json");

/** A change may cost up to this much more gas before the committed snapshot must be updated. */
export const GAS_TOLERANCE = 0.02;

/**
 * The figures a change was held to, kept beside the current ones so that the file shows both: the ERC-4906
 * signals may cost each of these actions at most `allowance` more gas per ticket at a batch of 100.
 */
export interface GasBaseline {
  reason: string;
  allowance: number;
  actions: (keyof GasSnapshot)[];
  figures: GasSnapshot;
}

/** gas-snapshot.json: the current figures, and the baseline they are held to. */
export type GasSnapshotFile = GasSnapshot & { baseline?: GasBaseline };

export function readGasSnapshot(): GasSnapshotFile {
  return JSON.parse(readFileSync(GAS_SNAPSHOT_PATH, "utf8")) as GasSnapshotFile;
}

/** Writes the current figures and keeps the committed baseline. */
export function writeGasSnapshot(snapshot: GasSnapshot): void {
  const { baseline } = readGasSnapshot();
  writeFileSync(GAS_SNAPSHOT_PATH, JSON.stringify(baseline ? { ...snapshot, baseline } : snapshot, null, 2) + "\n");
}

/** Every figure of `measured` more than GAS_TOLERANCE above its committed value. */
export function gasRegressions(committed: GasSnapshotFile, measured: GasSnapshot): string[] {
  return flatten(measured).flatMap(([key, value]) => {
    const before = flatten(committed).find(([k]) => k === key)?.[1];
    if (before === undefined) return [`${key}: ${value} has no committed figure`];
    return value > before * (1 + GAS_TOLERANCE) ? [`${key}: ${before} -> ${value}`] : [];
  });
}

/** Every action of the baseline that costs more than its allowance over the baseline per ticket at a batch of 100. */
export function overBaseline(baseline: GasBaseline, measured: GasSnapshot): string[] {
  return baseline.actions.flatMap((action) => {
    const before = (baseline.figures[action] as Record<string, number>)["100"];
    const after = (measured[action] as Record<string, number>)["100"];
    return after > before + baseline.allowance ? [`${action}.100: ${before} -> ${after} (allowed ${before + baseline.allowance})`] : [];
  });
}

function flatten(snapshot: GasSnapshotFile): [string, number][] {
  return Object.entries(snapshot)
    .filter(([key]) => key !== "baseline")
    .flatMap(([key, value]) =>
      typeof value === "number"
        ? [[key, value] as [string, number]]
        : Object.entries(value as Record<string, number>).map(([size, gas]) => [`${key}.${size}`, gas] as [string, number]),
    );
}

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import type { GasSnapshot } from "./measure-gas";

export const GAS_SNAPSHOT_PATH = join(__dirname, "..", "..", "gas-snapshot.json");

/** A change may cost up to this much more gas before the committed snapshot must be updated. */
export const GAS_TOLERANCE = 0.02;

export function readGasSnapshot(): GasSnapshot {
  return JSON.parse(readFileSync(GAS_SNAPSHOT_PATH, "utf8")) as GasSnapshot;
}

export function writeGasSnapshot(snapshot: GasSnapshot): void {
  writeFileSync(GAS_SNAPSHOT_PATH, JSON.stringify(snapshot, null, 2) + "\n");
}

/** Every figure of `measured` more than GAS_TOLERANCE above its committed value. */
export function gasRegressions(committed: GasSnapshot, measured: GasSnapshot): string[] {
  return flatten(measured).flatMap(([key, value]) => {
    const before = flatten(committed).find(([k]) => k === key)?.[1];
    if (before === undefined) return [`${key}: ${value} has no committed figure`];
    return value > before * (1 + GAS_TOLERANCE) ? [`${key}: ${before} -> ${value}`] : [];
  });
}

function flatten(snapshot: GasSnapshot): [string, number][] {
  return Object.entries(snapshot).flatMap(([key, value]) =>
    typeof value === "number" ? [[key, value] as [string, number]] : Object.entries(value).map(([size, gas]) => [`${key}.${size}`, gas] as [string, number]),
  );
}

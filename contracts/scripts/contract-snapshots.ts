import { readFile } from "node:fs/promises";

import type { ArtifactManager } from "hardhat/types/artifacts";
import type { SolidityBuildInfoOutput } from "hardhat/types/solidity";

/**
 * The registry's snapshots: its ABI and its storage layout in forms that change only when the contract's
 * interface or storage does. Written by `npm run contract:snapshots`, compared by the contract tests.
 */

type AbiEntry = { type: string; name?: string; inputs?: { type: string }[] };

/**
 * The ABI in a stable order: by entry type, then name, then parameter types. The compiler's order
 * follows the source's inheritance and may change when the contract is reorganised; the entries
 * themselves (names, parameter names, types, internal types, mutability) must not.
 */
export function sortedAbi<T extends AbiEntry>(abi: readonly T[]): T[] {
  const key = (entry: AbiEntry) => `${entry.type} ${entry.name ?? ""}(${(entry.inputs ?? []).map((input) => input.type).join(",")})`;
  return [...abi].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

interface SolcStorageEntry {
  label: string;
  offset: number;
  slot: string;
  type: string;
}

interface SolcStorageType {
  label: string;
  numberOfBytes: string;
  members?: SolcStorageEntry[];
  /** A mapping's value type. */
  value?: string;
}

interface SolcStorageLayout {
  storage: SolcStorageEntry[];
  types: Record<string, SolcStorageType> | null;
}

/**
 * A contract's storage layout as the compiler reports it, one line per variable (`slot:offset label
 * type (bytes)`, the members of a struct, or of the struct a mapping holds, indented below it), without the AST ids and type ids that change
 * with any edit of the source: what a redeployment or an upgrade path must keep.
 */
export async function storageLayoutLines(artifacts: ArtifactManager, contract: string): Promise<string[]> {
  const { contractName, inputSourceName, buildInfoId } = await artifacts.readArtifact(contract);
  const outputPath = buildInfoId === undefined ? undefined : await artifacts.getBuildInfoOutputPath(buildInfoId);
  if (inputSourceName === undefined || outputPath === undefined) throw new Error(`no build info for ${contract}: build first`);
  // The compiler's output names sources by their input source names (`project/src/…`), not by the fully qualified name's.
  const { output } = JSON.parse(await readFile(outputPath, "utf8")) as SolidityBuildInfoOutput;
  const layout = (output.contracts?.[inputSourceName]?.[contractName] as { storageLayout?: SolcStorageLayout } | undefined)?.storageLayout;
  if (!layout) throw new Error(`the compiler reported no storage layout for ${contract} (outputSelection in hardhat.config.ts)`);
  return describe(layout.storage, layout.types ?? {}, "");
}

function describe(entries: readonly SolcStorageEntry[], types: Record<string, SolcStorageType>, indent: string): string[] {
  return entries.flatMap((entry) => {
    const type = types[entry.type];
    const line = `${indent}${entry.slot}:${entry.offset} ${entry.label} ${type.label} (${type.numberOfBytes} bytes)`;
    return [line, ...describe(membersOf(type, types), types, `${indent}  `)];
  });
}

/** A struct's members, or those of the struct a mapping (of mappings) holds. */
function membersOf(type: SolcStorageType, types: Record<string, SolcStorageType>): readonly SolcStorageEntry[] {
  if (type.members) return type.members;
  return type.value ? membersOf(types[type.value], types) : [];
}

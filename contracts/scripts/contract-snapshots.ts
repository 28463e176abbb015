import type { HardhatRuntimeEnvironment } from "hardhat/types";

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
export async function storageLayoutLines(hre: HardhatRuntimeEnvironment, contract: string): Promise<string[]> {
  const [source, name] = contract.split(":");
  const buildInfo = await hre.artifacts.getBuildInfo(contract);
  if (!buildInfo) throw new Error(`no build info for ${contract}: compile first`);
  const layout = (buildInfo.output.contracts[source][name] as { storageLayout?: SolcStorageLayout }).storageLayout;
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

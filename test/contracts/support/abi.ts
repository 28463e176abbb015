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

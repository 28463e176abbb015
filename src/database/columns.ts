import type { ValueTransformer } from "typeorm";

/** numeric columns holding uint64/uint128 values travel as bigint in the code. */
export const bigintColumn: ValueTransformer = {
  to: (value: bigint | null | undefined) => (value === null || value === undefined ? value : value.toString()),
  from: (value: string | null) => (value === null ? null : BigInt(value)),
};

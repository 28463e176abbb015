import { readFileSync } from "node:fs";
import { join } from "node:path";

import * as asc from "assemblyscript/cli/asc";
import { instantiate } from "assemblyscript/lib/loader";

/** The subgraph's pure decoding file: the mappings import it, and it imports nothing of graph-ts. */
export const SUBGRAPH_RECORDS = join(__dirname, "..", "..", "subgraph", "src", "records.ts");

/** What the test entry adds: the runtime id of Uint8Array, which the loader needs to pass bytes in. */
const TEST_ENTRY = 'export * from "./records";\nexport const UINT8ARRAY_ID = idof<Uint8Array>();\n';

interface RawExports extends Record<string, unknown> {
  UINT8ARRAY_ID: WebAssembly.Global;
  TIME_RECORD_BYTES: WebAssembly.Global;
  METADATA_RECORD_BYTES: WebAssembly.Global;
  recordCount(records: number, recordBytes: number): number;
  recordEventIndex(records: number, recordBytes: number, index: number): bigint;
  recordSerial(records: number, recordBytes: number, index: number): bigint;
  recordOrderTime(records: number, index: number): bigint;
  recordMetadataHash(records: number, index: number): number;
  custodyMaskOf(custody: number, eventIndex: bigint): number;
  inCustodialSpace(mask: number, account: number): number;
  dayOf(timestamp: bigint): bigint;
}

/** The subgraph's decoding functions, compiled to WebAssembly, with bytes in and out as hex strings. */
export interface SubgraphRecords {
  timeRecordBytes: number;
  metadataRecordBytes: number;
  /** Each record's tokenId (eventIndex << 64 | serial) and, for check-ins and invalidations, its order time. */
  timeRecords(recordsHex: string): { tokenId: bigint; orderTime: bigint }[];
  metadataRecords(recordsHex: string): { tokenId: bigint; metadataHash: string }[];
  custodyMaskOf(custody: string, eventIndex: bigint): string;
  inCustodialSpace(maskHex: string, account: string): boolean;
  dayOf(timestamp: bigint): bigint;
}

/**
 * Compiles subgraph/src/records.ts with the AssemblyScript compiler graph-cli builds the mappings with
 * (assemblyscript 0.19, its stub runtime as `graph build` uses) and instantiates it in Node.
 */
export async function compileSubgraphRecords(): Promise<SubgraphRecords> {
  await asc.ready;
  const output = asc.compileString({ "records.ts": readFileSync(SUBGRAPH_RECORDS, "utf8"), "entry.ts": TEST_ENTRY }, {
    runtime: "stub",
    exportRuntime: true,
    optimize: true,
  } as never) as unknown as { binary?: Uint8Array; stderr: { toString(): string } };
  if (!output.binary) throw new Error(`asc failed to compile ${SUBGRAPH_RECORDS}:\n${output.stderr.toString()}`);
  const { exports } = await instantiate<RawExports>(output.binary, {});
  return wrap(exports);
}

function wrap(wasm: Awaited<ReturnType<typeof instantiate<RawExports>>>["exports"]): SubgraphRecords {
  const bytesIn = (hex: string) => wasm.__newArray(wasm.UINT8ARRAY_ID.value as number, Buffer.from(hex.replace(/^0x/, ""), "hex"));
  const hexOut = (pointer: number) => "0x" + Buffer.from(wasm.__getUint8Array(pointer)).toString("hex");
  const timeRecordBytes = wasm.TIME_RECORD_BYTES.value as number;
  const metadataRecordBytes = wasm.METADATA_RECORD_BYTES.value as number;
  const tokenIdOf = (records: number, size: number, i: number) =>
    (BigInt.asUintN(64, wasm.recordEventIndex(records, size, i)) << 64n) | BigInt.asUintN(64, wasm.recordSerial(records, size, i));
  return {
    timeRecordBytes,
    metadataRecordBytes,
    timeRecords(recordsHex) {
      const records = bytesIn(recordsHex);
      return Array.from({ length: wasm.recordCount(records, timeRecordBytes) }, (_, i) => ({
        tokenId: tokenIdOf(records, timeRecordBytes, i),
        orderTime: BigInt.asUintN(64, wasm.recordOrderTime(records, i)),
      }));
    },
    metadataRecords(recordsHex) {
      const records = bytesIn(recordsHex);
      return Array.from({ length: wasm.recordCount(records, metadataRecordBytes) }, (_, i) => ({
        tokenId: tokenIdOf(records, metadataRecordBytes, i),
        metadataHash: hexOut(wasm.recordMetadataHash(records, i)),
      }));
    },
    custodyMaskOf: (custody, eventIndex) => hexOut(wasm.custodyMaskOf(bytesIn(custody), eventIndex)),
    inCustodialSpace: (maskHex, account) => wasm.inCustodialSpace(bytesIn(maskHex), bytesIn(account)) !== 0,
    dayOf: (timestamp) => BigInt.asUintN(64, wasm.dayOf(timestamp)),
  };
}

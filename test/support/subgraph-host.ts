import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

import { getBytes, type Interface, type Log, type ParamType, type Result } from "ethers";

/**
 * The built subgraph (`npm run subgraph:build`: subgraph/build/TicketRegistry/TicketRegistry.wasm) run in Node with
 * the few host functions of a graph node its mappings import (the store, BigInt arithmetic, two conversions), so
 * that its handlers can be fed a real chain's logs. The objects are laid out as graph-node lays them out for
 * AssemblyScript 0.19 (graph-ts's TypeId, ethereum.Event, Entity): matchstick's job, which downloads its runner.
 */

const ROOT = join(__dirname, "..", "..");
export const SUBGRAPH_WASM = join(ROOT, "subgraph", "build", "TicketRegistry", "TicketRegistry.wasm");
const SCHEMA = join(ROOT, "subgraph", "schema.graphql");

/** What the build is made from: the manifest, the schema, the mappings and the contract's ABI. */
const BUILD_SOURCES = [
  join(ROOT, "subgraph", "subgraph.yaml"),
  SCHEMA,
  join(ROOT, "subgraph", "src"),
  join(ROOT, "contracts", "artifacts", "src", "TicketRegistry.sol", "TicketRegistry.json"),
];

/**
 * `npm run subgraph:build`, so that the handlers run are those of the sources as they are, unless the build is
 * newer than all of them (`npm test` has just built it).
 */
export function buildSubgraph(): void {
  if (existsSync(SUBGRAPH_WASM) && statSync(SUBGRAPH_WASM).mtimeMs > Math.max(...BUILD_SOURCES.map(newestChange))) return;
  try {
    execFileSync("bash", [join(ROOT, "scripts", "subgraph-build.sh")], { cwd: ROOT, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm run subgraph:build failed:\n${stdout ?? ""}${stderr ?? ""}`, { cause: error });
  }
}

function newestChange(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(stats.mtimeMs, ...readdirSync(path).map((entry) => newestChange(join(path, entry))));
}

/** An entity's field as the store holds it: graph-ts's store ValueKind and the value. */
export type StoreValue =
  | { kind: "string"; value: string }
  | { kind: "int"; value: number }
  | { kind: "bool"; value: boolean }
  | { kind: "null"; value: null }
  | { kind: "bytes"; value: string }
  | { kind: "bigint"; value: bigint }
  | { kind: "array"; value: StoreValue[] };

export type EntityFields = Record<string, StoreValue>;

/** The store's entities by type and id, and a plain view of them. */
export interface SubgraphStore {
  entities: Map<string, Map<string, EntityFields>>;
  /** An entity's fields as plain values (bytes as 0x-hex, BigInts as bigint), or undefined. */
  get(type: string, id: string): Record<string, unknown> | undefined;
  all(type: string): Record<string, unknown>[];
}

export interface SubgraphRun {
  store: SubgraphStore;
  /** Hands one log to the handler the manifest names for its event (ethers parses it with the registry's ABI). */
  handle(log: Log, block: { number: number; timestamp: number; hash: string }, transaction: { hash: string; index: number; from: string }): void;
}

const STORE_KIND = { string: 0, int: 1, bigdecimal: 2, bool: 3, array: 4, null: 5, bytes: 6, bigint: 7 } as const;
const ETH_KIND = { address: 0, fixedBytes: 1, bytes: 2, int: 3, uint: 4, bool: 5, string: 6, fixedArray: 7, array: 8, tuple: 9 } as const;

/** Type ids of graph-ts's TypeId enum (global/global.ts), resolved to runtime ids by the module's id_of_type. */
const TYPE = {
  String: 0,
  ArrayBuffer: 1,
  Uint8Array: 6,
  ArrayEthereumValue: 15,
  ArrayStoreValue: 16,
  ArrayEventParam: 19,
  ArrayTypedMapEntryStringStoreValue: 21,
  EventParam: 23,
  EthereumTransaction: 24,
  EthereumBlock: 25,
  EthereumValue: 30,
  StoreValue: 31,
  EthereumEvent: 33,
  TypedMapEntryStringStoreValue: 34,
  TypedMapStringStoreValue: 36,
} as const;

interface Exports {
  memory: WebAssembly.Memory;
  _start(): void;
  __new(size: number, id: number): number;
  id_of_type(typeId: number): number;
  [handler: string]: unknown;
}

/** `Event.tickets: [Ticket!]! @derivedFrom(field: "event")`, as {"Event.tickets": ["Ticket", "event"]}. */
function derivedFields(): Map<string, [string, string]> {
  const derived = new Map<string, [string, string]>();
  let type = "";
  for (const line of readFileSync(SCHEMA, "utf8").split("\n")) {
    const header = /^type (\w+) /.exec(line);
    if (header) type = header[1];
    const field = /^\s+(\w+): \[(\w+)!\]! @derivedFrom\(field: "(\w+)"\)/.exec(line);
    if (field) derived.set(`${type}.${field[1]}`, [field[2], field[3]]);
  }
  return derived;
}

/** The manifest's handlers: `handle` + the event's name. */
export async function startSubgraph(registry: Interface): Promise<SubgraphRun> {
  const entities = new Map<string, Map<string, EntityFields>>();
  const derived = derivedFields();
  // The imports below are bound before the module they serve is instantiated.
  const bound = {} as { wasm: Exports };
  const ids = new Map<number, number>();
  const id = (type: number) => {
    if (!ids.has(type)) ids.set(type, bound.wasm.id_of_type(type));
    return ids.get(type)!;
  };
  const view = () => new DataView(bound.wasm.memory.buffer);

  // Reading and writing AssemblyScript objects: a header before each pointer, rtSize at ptr - 4.
  const readString = (ptr: number) => Buffer.from(bound.wasm.memory.buffer, ptr, view().getUint32(ptr - 4, true)).toString("utf16le");
  const readBytes = (ptr: number) => {
    const data = view().getUint32(ptr + 4, true);
    return Buffer.from(new Uint8Array(bound.wasm.memory.buffer, data, view().getInt32(ptr + 8, true)));
  };
  const readPointers = (ptr: number) => {
    const data = view().getUint32(ptr + 4, true);
    return Array.from({ length: view().getInt32(ptr + 12, true) }, (_, i) => view().getUint32(data + 4 * i, true));
  };
  const object = (type: number, words: number[]) => {
    const ptr = bound.wasm.__new(words.length * 4, id(type));
    words.forEach((word, i) => view().setUint32(ptr + 4 * i, word, true));
    return ptr;
  };
  const newString = (text: string) => {
    const bytes = Buffer.from(text, "utf16le");
    const ptr = bound.wasm.__new(bytes.length, id(TYPE.String));
    new Uint8Array(bound.wasm.memory.buffer).set(bytes, ptr);
    return ptr;
  };
  const newBuffer = (bytes: Uint8Array) => {
    const ptr = bound.wasm.__new(bytes.length, id(TYPE.ArrayBuffer));
    new Uint8Array(bound.wasm.memory.buffer).set(bytes, ptr);
    return ptr;
  };
  /** Bytes, Address and BigInt are Uint8Arrays: buffer, dataStart, byteLength. */
  const newBytes = (bytes: Uint8Array) => {
    const buffer = newBuffer(bytes);
    return object(TYPE.Uint8Array, [buffer, buffer, bytes.length]);
  };
  const newArray = (type: number, pointers: number[]) => {
    const words = new Uint8Array(pointers.length * 4);
    pointers.forEach((pointer, i) => new DataView(words.buffer).setUint32(4 * i, pointer, true));
    const buffer = newBuffer(words);
    return object(type, [buffer, buffer, words.length, pointers.length]);
  };
  /** ethereum.Value and the store's Value: kind (i32), padding, payload (u64). */
  const newEnum = (type: number, kind: number, payload: bigint) => {
    const ptr = bound.wasm.__new(16, id(type));
    view().setInt32(ptr, kind, true);
    view().setBigUint64(ptr + 8, payload, true);
    return ptr;
  };
  const newBigInt = (value: bigint) => newBytes(signedLittleEndian(value));
  const readBigInt = (ptr: number) => fromSignedLittleEndian(readBytes(ptr));

  const readStoreValue = (ptr: number): StoreValue => {
    const kind = view().getInt32(ptr, true);
    const payload = view().getBigUint64(ptr + 8, true);
    const pointer = Number(payload & 0xffffffffn);
    switch (kind) {
      case STORE_KIND.string:
        return { kind: "string", value: readString(pointer) };
      case STORE_KIND.int:
        return { kind: "int", value: Number(BigInt.asIntN(32, payload)) };
      case STORE_KIND.bool:
        return { kind: "bool", value: payload !== 0n };
      case STORE_KIND.null:
        return { kind: "null", value: null };
      case STORE_KIND.bytes:
        return { kind: "bytes", value: "0x" + readBytes(pointer).toString("hex") };
      case STORE_KIND.bigint:
        return { kind: "bigint", value: readBigInt(pointer) };
      case STORE_KIND.array:
        return { kind: "array", value: readPointers(pointer).map(readStoreValue) };
      default:
        throw new Error(`store value of kind ${kind} not supported here`);
    }
  };
  const newStoreValue = (value: StoreValue): number => {
    switch (value.kind) {
      case "string":
        return newEnum(TYPE.StoreValue, STORE_KIND.string, BigInt(newString(value.value)));
      case "int":
        return newEnum(TYPE.StoreValue, STORE_KIND.int, BigInt.asUintN(64, BigInt(value.value)));
      case "bool":
        return newEnum(TYPE.StoreValue, STORE_KIND.bool, value.value ? 1n : 0n);
      case "null":
        return newEnum(TYPE.StoreValue, STORE_KIND.null, 0n);
      case "bytes":
        return newEnum(TYPE.StoreValue, STORE_KIND.bytes, BigInt(newBytes(getBytes(value.value))));
      case "bigint":
        return newEnum(TYPE.StoreValue, STORE_KIND.bigint, BigInt(newBigInt(value.value)));
      case "array":
        return newEnum(TYPE.StoreValue, STORE_KIND.array, BigInt(newArray(TYPE.ArrayStoreValue, value.value.map(newStoreValue))));
    }
  };
  /** Entity: { entries: Array<TypedMapEntry<string, Value>> }, each entry { key, value }. */
  const readEntity = (ptr: number): EntityFields =>
    Object.fromEntries(
      readPointers(view().getUint32(ptr, true)).map((entry) => [readString(view().getUint32(entry, true)), readStoreValue(view().getUint32(entry + 4, true))]),
    );
  const newEntity = (fields: EntityFields) => {
    const entries = Object.entries(fields).map(([key, value]) => object(TYPE.TypedMapEntryStringStoreValue, [newString(key), newStoreValue(value)]));
    return object(TYPE.TypedMapStringStoreValue, [newArray(TYPE.ArrayTypedMapEntryStringStoreValue, entries)]);
  };
  const table = (type: string) => {
    if (!entities.has(type)) entities.set(type, new Map());
    return entities.get(type)!;
  };
  const bigIntOp = (op: (x: bigint, y: bigint) => bigint) => (x: number, y: number) => newBigInt(op(readBigInt(x), readBigInt(y)));
  const shift = (op: (x: bigint, bits: bigint) => bigint) => (x: number, bits: number) => newBigInt(op(readBigInt(x), BigInt(bits)));

  const imports = {
    env: {
      abort: (message: number, file: number, line: number, column: number) => {
        throw new Error(`mapping aborted: ${message ? readString(message) : ""} at ${file ? readString(file) : "?"}:${line}:${column}`);
      },
    },
    index: {
      "store.get": (type: number, entityId: number) => {
        const fields = entities.get(readString(type))?.get(readString(entityId));
        return fields ? newEntity(fields) : 0;
      },
      "store.set": (type: number, entityId: number, data: number) => {
        const fields = readEntity(data);
        const name = readString(type);
        const key = readString(entityId);
        // graph-node merges a save into the stored entity: fields left unset keep their values.
        table(name).set(key, { ...table(name).get(key), ...fields });
      },
      "store.loadRelated": (type: number, entityId: number, field: number) => {
        const relation = derived.get(`${readString(type)}.${readString(field)}`);
        if (!relation) throw new Error(`no @derivedFrom field ${readString(type)}.${readString(field)}`);
        const [related, through] = relation;
        const owner = readString(entityId);
        const rows = [...table(related).values()].filter((fields) => fields[through]?.value === owner);
        return newArray(TYPE.ArrayStoreValue, rows.map(newEntity));
      },
    },
    conversion: {
      "typeConversion.bigIntToString": (x: number) => newString(readBigInt(x).toString()),
      "typeConversion.bytesToHex": (bytes: number) => newString("0x" + readBytes(bytes).toString("hex")),
    },
    numbers: {
      "bigInt.plus": bigIntOp((x, y) => x + y),
      "bigInt.bitAnd": bigIntOp((x, y) => x & y),
      "bigInt.bitOr": bigIntOp((x, y) => x | y),
      "bigInt.leftShift": shift((x, bits) => x << bits),
      "bigInt.rightShift": shift((x, bits) => x >> bits),
      "bigDecimal.toString": () => {
        throw new Error("the mappings use no BigDecimal");
      },
    },
  };
  const { instance } = await WebAssembly.instantiate(readFileSync(SUBGRAPH_WASM), imports);
  bound.wasm = instance.exports as unknown as Exports;
  bound.wasm._start();

  /** An event parameter as graph-node passes it: an ethereum.Value of the ABI type. */
  const ethValue = (type: ParamType, value: unknown): number => {
    if (type.baseType === "tuple") {
      const fields = type.components!.map((component, i) => ethValue(component, (value as Result)[i]));
      return newEnum(TYPE.EthereumValue, ETH_KIND.tuple, BigInt(newArray(TYPE.ArrayEthereumValue, fields)));
    }
    if (type.type === "address") return newEnum(TYPE.EthereumValue, ETH_KIND.address, BigInt(newBytes(getBytes(value as string))));
    if (type.type === "bool") return newEnum(TYPE.EthereumValue, ETH_KIND.bool, value ? 1n : 0n);
    if (type.type === "string") return newEnum(TYPE.EthereumValue, ETH_KIND.string, BigInt(newString(value as string)));
    if (type.type === "bytes") return newEnum(TYPE.EthereumValue, ETH_KIND.bytes, BigInt(newBytes(getBytes(value as string))));
    if (/^bytes\d+$/.test(type.type)) return newEnum(TYPE.EthereumValue, ETH_KIND.fixedBytes, BigInt(newBytes(getBytes(value as string))));
    if (/^u?int\d+$/.test(type.type)) {
      const kind = type.type.startsWith("u") ? ETH_KIND.uint : ETH_KIND.int;
      return newEnum(TYPE.EthereumValue, kind, BigInt(newBigInt(value as bigint)));
    }
    throw new Error(`ABI type ${type.type} not supported here`);
  };
  const zeroBytes = (length: number) => newBytes(new Uint8Array(length));

  return {
    store: {
      entities,
      get: (type, entityId) => {
        const fields = entities.get(type)?.get(entityId);
        return fields ? plain(fields) : undefined;
      },
      all: (type) => [...table(type).values()].map(plain),
    },
    handle(log, block, transaction) {
      const parsed = registry.parseLog(log);
      if (!parsed) throw new Error(`not a registry log: ${log.topics[0]}`);
      const handler = bound.wasm[`handle${parsed.name}`] as ((event: number) => void) | undefined;
      if (!handler) throw new Error(`the subgraph has no handler for ${parsed.name}`);
      const parameters = parsed.fragment.inputs.map((input, i) => object(TYPE.EventParam, [newString(input.name), ethValue(input, parsed.args[i])]));
      const zero = newBigInt(0n);
      const ethBlock = object(TYPE.EthereumBlock, [
        newBytes(getBytes(block.hash)),
        zeroBytes(32),
        zeroBytes(32),
        zeroBytes(20),
        zeroBytes(32),
        zeroBytes(32),
        zeroBytes(32),
        newBigInt(BigInt(block.number)),
        zero,
        zero,
        newBigInt(BigInt(block.timestamp)),
        zero,
        zero,
        0,
        0,
      ]);
      const ethTransaction = object(TYPE.EthereumTransaction, [
        newBytes(getBytes(transaction.hash)),
        newBigInt(BigInt(transaction.index)),
        newBytes(getBytes(transaction.from)),
        newBytes(getBytes(log.address)),
        zero,
        zero,
        zero,
        newBytes(new Uint8Array(0)),
        zero,
      ]);
      const event = object(TYPE.EthereumEvent, [
        newBytes(getBytes(log.address)),
        newBigInt(BigInt(log.index)),
        newBigInt(BigInt(log.transactionIndex)),
        0,
        ethBlock,
        ethTransaction,
        newArray(TYPE.ArrayEventParam, parameters),
        0,
      ]);
      handler(event);
    },
  };
}

function plain(fields: EntityFields): Record<string, unknown> {
  const value = (field: StoreValue): unknown => (field.kind === "array" ? field.value.map(value) : field.value);
  return Object.fromEntries(Object.entries(fields).map(([key, field]) => [key, value(field)]));
}

/** A BigInt as graph-node passes it: two's complement, little-endian, in the fewest bytes. */
function signedLittleEndian(value: bigint): Uint8Array {
  const bytes: number[] = [];
  let rest = value;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, rest));
    bytes.push(byte);
    rest >>= 8n;
    if ((rest === 0n && (byte & 0x80) === 0) || (rest === -1n && (byte & 0x80) !== 0)) return Uint8Array.from(bytes);
  }
}

function fromSignedLittleEndian(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  const unsigned = BigInt("0x" + (Buffer.from(bytes).reverse().toString("hex") || "0"));
  return BigInt.asIntN(bytes.length * 8, unsigned);
}

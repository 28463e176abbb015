import { randomBytes } from "node:crypto";

import { type JsonRpcProvider, toBeHex, Transaction, Wallet, zeroPadValue } from "ethers";
import type { DataSource } from "typeorm";

import { RegistryItemFailure } from "../../src/registry";
import { TicketRegistry__factory } from "../../typechain-types";

/**
 * A JSON-RPC node as the chain writer meets it, scripted in memory, for property tests that drive the
 * writer through thousands of faults in seconds: a pool per sender that mines in nonce order, blocks
 * on request, and the registry's order rules (a sale needs its event, a ticket action its ticket's
 * sale). A real node cannot refuse, drop, or let another sender take a nonce at a chosen step, nor
 * mine hundreds of blocks a second; the rules it keeps here are the ones the writer depends on
 * (nonces, pool, receipts, `nonce too low`, `already known`), and the real nodes keep them in the
 * chain end-to-end tests.
 *
 * What a transaction carries is read from the ledger when the node first gets it (the writer records
 * its actions with it before any broadcast): the node then checks, at mining, that each action's
 * prerequisite is already on chain, and lists every one that is not in `violations`.
 */

const REGISTRY = TicketRegistry__factory.createInterface();
const ITEM_FAILED = REGISTRY.getEvent("ItemFailed").topicHash;
export const REGISTRY_ADDRESS = "0x00000000000000000000000000000000000000aa";
export const CHAIN_ID = 31337n;

/** An action as the ledger recorded it with its transaction: what the registry checks it against. */
interface CarriedItem {
  id: string;
  kind: string;
  eventRef: string;
  ticketRef: string | null;
  batchIndex: number;
}

interface NodeTransaction {
  hash: string;
  from: string;
  nonce: bigint;
  maxFeePerGas: bigint;
  /** Null for a transaction signed elsewhere (it carries nothing the ledger knows). */
  items: CarriedItem[] | null;
}

interface Block {
  number: number;
  hash: string;
  transactions: NodeTransaction[];
}

interface Receipt {
  transactionHash: string;
  status: string;
  blockNumber: string;
  blockHash: string;
  gasUsed: string;
  logs: { address: string; topics: string[]; logIndex: string }[];
}

export class ScriptedNode {
  readonly blocks: Block[] = [{ number: 0, hash: randomHash(), transactions: [] }];
  /** Broadcasts ahead of an earlier nonce the node lacks, and actions mined before what they depend on. */
  readonly violations: string[] = [];
  private readonly pool = new Map<string, NodeTransaction>();
  private readonly receipts = new Map<string, Receipt>();
  private readonly mined = new Map<string, NodeTransaction>();
  private readonly carried = new Map<string, CarriedItem[]>();
  private readonly events = new Set<string>();
  private readonly tickets = new Set<string>();
  /** Refusals the next broadcasts get, in order (null: answered normally). */
  private readonly refusals: string[] = [];
  /** Broadcasts on their way while the network holds them (see `hold`): delivered, or lost with the node's restart. */
  private held: ((arrives: boolean) => void)[] | null = null;

  constructor(private readonly ledger: DataSource) {}

  /** The node as ethers' provider, with only what the writer calls. */
  get provider(): JsonRpcProvider {
    return {
      getTransactionCount: (address: string, tag: string | number) => Promise.resolve(Number(this.count(address, tag))),
      getTransaction: (hash: string) => Promise.resolve(this.pool.get(hash) ?? this.mined.get(hash) ?? null),
      getBlock: (tag: string | number) => Promise.resolve(this.block(tag)),
      getBlockNumber: () => Promise.resolve(this.head.number),
      getBalance: () => Promise.resolve(10n ** 24n),
      call: () => Promise.resolve(REGISTRY.encodeFunctionResult("paused", [false])),
      send: (method: string, params: unknown[]) => this.send(method, params),
    } as unknown as JsonRpcProvider;
  }

  /** The next broadcast is refused with `message` (a production node's wording), as a node that does not take it. */
  refuseNext(message: string): void {
    this.refusals.push(message);
  }

  /** Broadcasts from now on reach the node only at `deliver()`: whatever happens meanwhile (another sender's transaction, a block) comes first. */
  hold(): void {
    this.held ??= [];
  }

  /** The held broadcasts reach the node, in the order they were sent. */
  deliver(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const release of held) release(true);
  }

  /** Broadcasts on their way are lost (the node went down): their senders get no answer. */
  loseHeld(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const release of held) release(false);
  }

  /** The node restarts with an empty pool: what it held is forgotten. */
  dropPool(): void {
    this.pool.clear();
  }

  /**
   * The signer's key used elsewhere: a transaction at the node's next nonce for it, mined at once in a
   * block of its own (the chain took the nonce).
   */
  async sendFromElsewhere(key: string): Promise<void> {
    const wallet = new Wallet(key);
    for (;;) {
      const nonce = this.count(wallet.address, "pending");
      const raw = await wallet.signTransaction({
        type: 2,
        chainId: CHAIN_ID,
        nonce: Number(nonce),
        to: wallet.address,
        value: 0n,
        gasLimit: 21_000n,
        maxFeePerGas: 10n ** 9n,
        maxPriorityFeePerGas: 1n,
      });
      // A broadcast of the writer's may have taken that nonce while this one was signed: sign for the next.
      if (this.count(wallet.address, "pending") !== nonce) continue;
      this.pool.set(Transaction.from(raw).hash as string, { ...this.decoded(raw), items: null });
      this.mine();
      return;
    }
  }

  /** The sender's counts and pooled nonces, for a failure's message. */
  describe(address: string): string {
    const pooled = [...this.pool.values()].filter((tx) => tx.from === address).map((tx) => `${tx.nonce}${tx.items ? "" : " (elsewhere)"} ${tx.hash}`);
    return `mined ${this.count(address, "latest")}, pending ${this.count(address, "pending")}, pool [${pooled.join(", ")}]`;
  }

  /** Mines one block: each sender's pooled transactions that follow its mined count, in nonce order. */
  mine(): void {
    const block: Block = { number: this.head.number + 1, hash: randomHash(), transactions: [] };
    for (;;) {
      const next = [...this.pool.values()].find(
        (tx) => tx.nonce === this.count(tx.from, "latest") + BigInt(block.transactions.filter((t) => t.from === tx.from).length),
      );
      if (!next) break;
      block.transactions.push(next);
      for (const [hash, tx] of this.pool) if (tx.from === next.from && tx.nonce === next.nonce) this.pool.delete(hash);
    }
    this.blocks.push(block);
    block.transactions.forEach((tx, index) => this.apply(block, tx, index));
    // What the block made stale leaves the pool, as a node's pool drops it.
    for (const [hash, tx] of this.pool) if (tx.nonce < this.count(tx.from, "latest")) this.pool.delete(hash);
  }

  private get head(): Block {
    return this.blocks[this.blocks.length - 1];
  }

  private block(tag: string | number): object | null {
    const block = tag === "latest" ? this.head : this.blocks[Number(tag)];
    return block ? { number: block.number, hash: block.hash, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n } : null;
  }

  /** The sender's transactions mined through `tag`'s block, or with the pool's next ones (`pending`). */
  private count(address: string, tag: string | number): bigint {
    const through = tag === "latest" || tag === "pending" ? this.head.number : Number(tag);
    let count = 0n;
    for (const block of this.blocks.slice(0, through + 1)) count += BigInt(block.transactions.filter((tx) => tx.from === address).length);
    if (tag !== "pending") return count;
    while ([...this.pool.values()].some((tx) => tx.from === address && tx.nonce === count)) count += 1n;
    return count;
  }

  private async send(method: string, params: unknown[]): Promise<unknown> {
    if (method === "eth_sendRawTransaction") return this.sendRaw(params[0] as string);
    if (method === "eth_getTransactionReceipt") return this.receipts.get(params[0] as string) ?? null;
    if (method === "eth_maxPriorityFeePerGas") return toBeHex(1_000_000_000n);
    if (method === "eth_gasPrice") return toBeHex(2_000_000_000n);
    throw new Error(`the scripted node does not answer ${method}`);
  }

  private async sendRaw(raw: string): Promise<string> {
    const holding = this.held;
    if (holding && !(await new Promise<boolean>((resolve) => holding.push(resolve)))) throw new Error("socket hang up");
    const tx = this.decoded(raw);
    const refusal = this.refusals.shift();
    if (refusal) throw rpcError(refusal);
    const items = await this.itemsOf(tx.hash);
    // From here on nothing waits: the node takes the transaction as the pool is now.
    if (this.pool.has(tx.hash) || this.mined.has(tx.hash)) throw rpcError("already known");
    if (tx.nonce < this.count(tx.from, "latest")) throw rpcError("nonce too low");
    const held = [...this.pool.values()].find((pooled) => pooled.from === tx.from && pooled.nonce === tx.nonce);
    // geth's rule: a replacement must raise the fee by 10%.
    if (held && tx.maxFeePerGas * 10n < held.maxFeePerGas * 11n) throw rpcError("replacement transaction underpriced");
    if (held) this.pool.delete(held.hash);
    // The writer's rule: nothing goes out while an earlier nonce of its signer is neither mined nor held here.
    for (let nonce = this.count(tx.from, "latest"); nonce < tx.nonce; nonce++) {
      if (![...this.pool.values()].some((pooled) => pooled.from === tx.from && pooled.nonce === nonce)) {
        this.violations.push(`nonce ${tx.nonce} broadcast while nonce ${nonce} was neither mined nor held by the node`);
        break;
      }
    }
    this.pool.set(tx.hash, { ...tx, items });
    return tx.hash;
  }

  private decoded(raw: string): Omit<NodeTransaction, "items"> {
    const tx = Transaction.from(raw);
    return { hash: tx.hash as string, from: tx.from as string, nonce: BigInt(tx.nonce), maxFeePerGas: tx.maxFeePerGas ?? 0n };
  }

  /** What the ledger put in this transaction (the same for every attempt at its nonce). */
  private async itemsOf(hash: string): Promise<CarriedItem[]> {
    const cached = this.carried.get(hash);
    if (cached) return cached;
    const rows = await this.ledger.query<{ id: string; kind: string; event_ref: string; ticket_ref: string | null; batch_index: number }[]>(
      `SELECT a.id, a.kind, a.event_ref, a.ticket_ref, a.batch_index FROM chain_actions a JOIN chain_transactions t ON a.tx_signer = t.signer AND a.tx_nonce = t.nonce
        WHERE t.tx_hash = $1 AND a.status = 'pending' ORDER BY a.batch_index`,
      [hash],
    );
    if (rows.length === 0) throw new Error(`a transaction the ledger carries no actions in was broadcast: ${hash}`);
    const items = rows.map((row) => ({ id: row.id, kind: row.kind, eventRef: row.event_ref, ticketRef: row.ticket_ref, batchIndex: row.batch_index }));
    this.carried.set(hash, items);
    return items;
  }

  /** The registry's rules, item by item: what it refuses gets an ItemFailed log; what came before its prerequisite is a violation. */
  private apply(block: Block, tx: NodeTransaction, index: number): void {
    this.mined.set(tx.hash, tx);
    const logs: Receipt["logs"] = [];
    for (const item of tx.items ?? []) {
      const failure = this.applyItem(item);
      if (failure === RegistryItemFailure.EventUnknown || failure === RegistryItemFailure.TicketUnknown) {
        this.violations.push(`${item.kind} ${item.id} mined in block ${block.number} before what it depends on (${RegistryItemFailure[failure]})`);
      }
      if (failure !== RegistryItemFailure.None) {
        logs.push({
          address: REGISTRY_ADDRESS,
          topics: [ITEM_FAILED, word(BigInt(item.batchIndex)), word(0n), word(BigInt(failure))],
          logIndex: toBeHex(logs.length),
        });
      }
    }
    this.receipts.set(tx.hash, {
      transactionHash: tx.hash,
      status: "0x1",
      blockNumber: toBeHex(block.number),
      blockHash: block.hash,
      gasUsed: toBeHex(21_000 + index),
      logs,
    });
  }

  private applyItem(item: CarriedItem): RegistryItemFailure {
    if (item.kind === "newEvent") {
      if (this.events.has(item.eventRef)) return RegistryItemFailure.EventExists;
      this.events.add(item.eventRef);
      return RegistryItemFailure.None;
    }
    if (item.kind === "sold") {
      if (!this.events.has(item.eventRef)) return RegistryItemFailure.EventUnknown;
      if (this.tickets.has(item.ticketRef as string)) return RegistryItemFailure.TicketExists;
      this.tickets.add(item.ticketRef as string);
      return RegistryItemFailure.None;
    }
    return this.tickets.has(item.ticketRef as string) ? RegistryItemFailure.None : RegistryItemFailure.TicketUnknown;
  }
}

/** A JSON-RPC error as ethers throws it for a node's answer (see nodeErrorMessage). */
function rpcError(message: string): Error {
  return Object.assign(new Error(message), { error: { code: -32000, message } });
}

function word(value: bigint): string {
  return zeroPadValue(toBeHex(value), 32);
}

function randomHash(): string {
  return "0x" + randomBytes(32).toString("hex");
}

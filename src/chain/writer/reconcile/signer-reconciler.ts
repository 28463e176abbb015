import { Injectable, Logger } from "@nestjs/common";
import { getAddress, type JsonRpcProvider } from "ethers";

import { ChainClient } from "../../chain-client";
import { ChainWriterQueue } from "../../queue/chain-writer.queue";
import { fetchReceipt } from "../receipts/mined-receipt";
import { BroadcastStore } from "../broadcast/broadcast.store";
import type { OpenTransaction } from "../signed-transaction";
import { type HeldLock, SignerLocks } from "../signer-locks";
import { type FoundMined, ReconcileStore } from "./reconcile.store";
import { type SignerStop, SignerStopsStore } from "./signer-stops.store";

/** What reconciling one signer found and did; nonces as decimal strings, for JSON. */
export interface SignerReconcileReport {
  signer: string;
  /** The ledger's next nonce before, and as reconciled. */
  ledgerNonce: string;
  nextNonce: string;
  /** The chain's count of the signer's transactions, with the node's pool (pending) and mined only. */
  chainNonce: string;
  chainMinedNonce: string;
  /** The ledger's own transactions found in blocks by their receipts, marked mined (the watcher finalizes them). */
  markedMined: string[];
  /** The ledger's open nonces the chain took with other transactions: given up, their actions back in line. */
  givenUp: { nonce: string; hashes: string[] }[];
  /** Later open nonces neither mined nor held by the node: taken back, their actions signed again in order. */
  withdrawn: string[];
  /** Actions of given-up and withdrawn nonces, waiting again in acceptance order. */
  requeuedActions: number;
  /** The stop it cleared, null when the signer was not stopped. */
  stop: SignerStop | null;
  /** Whether the signer was told to go on (false only for a signer that never wrote: there is nothing to resume). */
  resumed: boolean;
}

/** Another process keeps the signer's flush or watcher lock longer than a reconciliation waits. */
export class SignerBusyError extends Error {
  constructor(signer: string) {
    super(`the writer or the receipt watcher of ${signer} stayed busy: try again`);
    this.name = "SignerBusyError";
  }
}

/** The node holds transactions of the signer the ledger does not know, not mined yet. */
export class ForeignPendingError extends Error {
  constructor(signer: string, mined: bigint, pending: bigint) {
    super(`the node holds transactions of ${signer} this ledger did not sign at nonces ${mined}…${pending - 1n}, not mined yet: run again once they are`);
    this.name = "ForeignPendingError";
  }
}

/** How long reconciling waits for the signer's running flush and watcher pass to let go. */
const LOCK_WAIT_MS = 30_000;

type NonceState = { nonce: bigint; attempts: OpenTransaction[] } & (
  { kind: "mined"; found: FoundMined & { hash: string } } | { kind: "held" } | { kind: "unknown" }
);

/**
 * Makes the ledger agree with the chain about one signer, under its writer and watcher locks: reads
 * each open nonce's attempts on the chain (by their hashes: a receipt means mined, the node knowing
 * one means held), marks the ledger's own transactions found mined (never mistaking them for another's),
 * gives up the open nonces the chain took otherwise, takes back every later one the node does not hold,
 * follows the chain's nonce, clears the signer's stop and asks for a flush. Run by
 * `npm run cli -- signer reconcile <address>`, and for each signer when a whole ledger is reconciled.
 */
@Injectable()
export class SignerReconciler {
  private readonly logger = new Logger(SignerReconciler.name);

  constructor(
    private readonly chain: ChainClient,
    private readonly open: BroadcastStore,
    private readonly store: ReconcileStore,
    private readonly stops: SignerStopsStore,
    private readonly locks: SignerLocks,
    private readonly queue: ChainWriterQueue,
  ) {}

  /** `address` in any case; throws for one that is not an address. */
  async reconcile(address: string): Promise<SignerReconcileReport> {
    const signer = getAddress(address);
    const held = await this.lockSigner(signer);
    let report: SignerReconcileReport;
    try {
      report = await this.reconcileLocked(await this.chain.connect(), signer);
    } finally {
      for (const lock of held.reverse()) await lock.release();
    }
    if (report.resumed) await this.queue.requestFlush("reconcile", this.shardOf(signer));
    this.logger.warn(
      { ...report, stop: report.stop?.reason ?? null },
      `signer ${signer} reconciled: next nonce ${report.ledgerNonce} → ${report.nextNonce} (chain ${report.chainNonce}), ` +
        `${report.markedMined.length} found mined, ${report.givenUp.length} nonce(s) given up, ${report.withdrawn.length} taken back, ${report.requeuedActions} actions wait again`,
    );
    return report;
  }

  private async reconcileLocked(provider: JsonRpcProvider, signer: string): Promise<SignerReconcileReport> {
    // The chain first, then the ledger: the ledger's own transactions are recorded before they are sent.
    const chainNonce = BigInt(await provider.getTransactionCount(signer, "pending"));
    const chainMinedNonce = BigInt(await provider.getTransactionCount(signer, "latest"));
    const ledgerNonce = await this.store.nextNonce(signer);
    const base = { signer, chainNonce: chainNonce.toString(), chainMinedNonce: chainMinedNonce.toString(), markedMined: [], givenUp: [], withdrawn: [] };
    if (ledgerNonce === null) return { ...base, ledgerNonce: "none", nextNonce: "none", requeuedActions: 0, stop: null, resumed: false };
    const stop = (await this.stops.stateOf(signer))?.stop ?? null;
    const states = await this.nonceStates(provider, await this.open.openTransactions(signer));
    // The highest nonce of ours the chain has or the node holds: nothing at or below it can be signed again.
    const highestKept = states.reduce((highest, state) => (state.kind === "unknown" ? highest : state.nonce), -1n);
    const nextNonce = chainNonce > highestKept ? chainNonce : highestKept + 1n;
    // Another sender's transactions still in the node's pool may yet vanish from it: following them
    // would leave a gap below the signer's next nonces that nothing fills. Mined, they are the chain's.
    if (chainNonce > chainMinedNonce && chainNonce > highestKept + 1n) throw new ForeignPendingError(signer, chainMinedNonce, chainNonce);
    const unknown = states.filter((state) => state.kind === "unknown");
    const givenUp = unknown.filter((state) => state.nonce < chainNonce);
    const withdrawn = unknown.filter((state) => state.nonce >= nextNonce);
    // Found mined and not marked so yet (the watcher marks what it sees; these it had not seen).
    const mined = states.flatMap((state) =>
      state.kind === "mined" && state.attempts.find((attempt) => attempt.id === state.found.id)?.status !== "mined" ? [state.found] : [],
    );
    const applied = await this.store.apply(signer, {
      mined,
      givenUp: givenUp.map((state) => state.nonce),
      withdrawn: withdrawn.map((state) => state.nonce),
      nextNonce,
    });
    return {
      ...base,
      ledgerNonce: ledgerNonce.toString(),
      nextNonce: applied.nextNonce.toString(),
      markedMined: mined.map((found) => found.hash),
      givenUp: givenUp.map((state) => ({ nonce: state.nonce.toString(), hashes: state.attempts.map((attempt) => attempt.hash) })),
      withdrawn: withdrawn.map((state) => state.nonce.toString()),
      requeuedActions: applied.requeued,
      stop,
      resumed: true,
    };
  }

  /** Each open nonce as the chain knows it: one of its attempts mined (by receipt), held by the node, or neither. */
  private async nonceStates(provider: JsonRpcProvider, open: OpenTransaction[]): Promise<NonceState[]> {
    const byNonce = new Map<bigint, OpenTransaction[]>();
    for (const tx of open) byNonce.set(tx.nonce, [...(byNonce.get(tx.nonce) ?? []), tx]);
    const states: NonceState[] = [];
    for (const [nonce, attempts] of byNonce) states.push(await this.nonceState(provider, nonce, attempts));
    return states;
  }

  private async nonceState(provider: JsonRpcProvider, nonce: bigint, attempts: OpenTransaction[]): Promise<NonceState> {
    for (const attempt of attempts) {
      const receipt = await fetchReceipt(provider, attempt.hash);
      if (receipt)
        return {
          nonce,
          attempts,
          kind: "mined",
          found: { id: attempt.id, hash: attempt.hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash },
        };
    }
    for (const attempt of attempts) if (await provider.getTransaction(attempt.hash)) return { nonce, attempts, kind: "held" };
    return { nonce, attempts, kind: "unknown" };
  }

  /** The signer's writer and watcher locks, waited for while a flush or a watcher pass holds them. */
  private async lockSigner(signer: string): Promise<HeldLock[]> {
    const held: HeldLock[] = [];
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (const name of [`writer:${signer}`, `watcher:${signer}`]) {
      for (;;) {
        const lock = await this.locks.tryAcquire(name);
        if (lock) {
          held.push(lock);
          break;
        }
        if (Date.now() > deadline) {
          for (const taken of held.reverse()) await taken.release();
          throw new SignerBusyError(signer);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return held;
  }

  /** The signer's shard, or undefined (every shard) for an address the configuration does not list. */
  private shardOf(signer: string): number | undefined {
    const index = this.chain.signers().findIndex((wallet) => wallet.address.toLowerCase() === signer.toLowerCase());
    return index >= 0 ? index : undefined;
  }
}

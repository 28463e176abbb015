import type { JsonRpcProvider } from "ethers";
import type { DataSource } from "typeorm";

import { type ActionKind, KIND_OF_BATCH_ITEM } from "../../common/actions";
import type { AppConfig } from "../../config/app-config";
import { RegistryItemFailure } from "../../registry";
import type { ChainClient } from "../chain-client";
import type { SignerReconcileReport } from "../writer/reconcile/signer-reconciler";
import { type AppliedAction, LedgerReconcileStore, type SerialMove } from "./ledger-reconcile.store";
import { type LostBatchItem, readLostBatches } from "./lost-batches";
import { readRegistryHistory, type RegisteredEvent, type SoldTicket } from "./registry-history";

/** The kinds that move a token to a holder: the ledger takes the holders of the tokens they closed. */
const MOVING_KINDS: ReadonlySet<ActionKind> = new Set(["sold", "resold", "claimed"]);

/** How long the reconcile waits for the signers' transactions in the node's pool to be mined. */
const POOL_WAIT_MS = 120_000;

/** The chain is not in a state to reconcile against (transactions of the signers still unmined). */
export class LedgerReconcileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LedgerReconcileError";
  }
}

/** An event on chain the ledger does not know: a promise made by a part of the ledger that is gone. */
export type LostEvent = RegisteredEvent;

/** A ticket on chain the ledger does not know; `eventKey` names its event (null if the registry has none under its index). */
export type LostTicket = SoldTicket & { eventKey: string | null };

export interface LedgerReconcileReport {
  chainId: bigint;
  registryAddress: string;
  /** The blocks whose registry logs were read. */
  blocks: { from: number; to: number };
  lostEvents: LostEvent[];
  lostTickets: LostTicket[];
  /**
   * Every item of the lost part's batches that no action of the ledger stands for (its sales and event
   * registrations are the lost tickets and events; its other items changed tickets and events the ledger
   * may know: a check-in, a resale, a claim the ledger lacks), with the registry's refusal if it refused it.
   */
  lostActions: LostBatchItem[];
  /** What this run changed in the ledger; nothing on a second run. */
  changes: {
    eventIndexes: { from: bigint; to: bigint } | null;
    serials: SerialMove[];
    /** What SignerReconciler found and did for each configured signer. */
    signers: SignerReconcileReport[];
    /** The ledger's waiting actions that its lost part had sent, now closed with what the chain made of them. */
    appliedActions: string[];
  };
}

/**
 * Puts a ledger restored from a backup (or otherwise behind its registry) past what the chain holds,
 * and lists what the chain holds that the ledger lost. Run with no worker writing (the CLI checks).
 *
 * The logs are read from the lowest of the signers' last confirmed blocks (each signer's transactions
 * are mined in nonce order, so whatever a signer sent that the ledger lost comes after its last
 * confirmed one; a signer that never confirmed anything reads from REGISTRY_FROM_BLOCK) to the head.
 */
export class LedgerReconciler {
  private readonly store: LedgerReconcileStore;

  constructor(
    dataSource: DataSource,
    private readonly chain: ChainClient,
    private readonly config: AppConfig,
    /** SignerReconciler's reconcile: the ledger's own transactions found mined, the nonces the chain took otherwise given up, the chain's nonce. */
    private readonly reconcileSigner: (address: string) => Promise<SignerReconcileReport>,
  ) {
    this.store = new LedgerReconcileStore(dataSource);
  }

  async reconcile(): Promise<LedgerReconcileReport> {
    const provider = await this.chain.connect();
    await this.untilPoolsMined(provider);
    const [chainId, toBlock] = await Promise.all([this.chain.chainId(), provider.getBlockNumber()]);
    const registryAddress = this.chain.registryAddress;
    // First: the ledger's own transactions found mined are then told apart from those of its lost part.
    const signers = await this.reconcileSigners();
    const fromBlock = await this.firstBlockToRead();
    const history = await readRegistryHistory(provider, this.chain.registry, {
      registryAddress,
      fromBlock,
      toBlock,
      maxBlockRange: this.config.chain.transfers.maxBlockRange,
    });
    const known = await this.ledgerView(history);
    const lostEvents = history.events.filter((event) => !isKnown(known.events.get(event.eventIndex), event.eventKey));
    const lostTickets = await this.withEventKeys(
      provider,
      history,
      history.tickets.filter((ticket) => !isKnown(known.tickets.get(ticket.tokenId), ticket.ticketHash)),
    );
    const unknown = new Set(history.transactions.map((hash) => hash.toLowerCase()).filter((hash) => !known.transactions.has(hash)));
    const { closed, unmatched } = await this.closeApplied(provider, history.transactions, unknown, { chainId, registryAddress });
    return {
      chainId,
      registryAddress,
      blocks: { from: fromBlock, to: toBlock },
      lostEvents,
      lostTickets,
      lostActions: unmatched,
      changes: {
        eventIndexes: await this.store.moveEventIndexes(highestEventIndex(history)),
        serials: await this.store.moveSerials(highestSerials(history)),
        signers,
        appliedActions: closed,
      },
    };
  }

  /**
   * Waits until no transaction of the signers waits in the node's pool (a batch sent before the
   * workers stopped is mined before the logs are read, or it would be missed); refuses after POOL_WAIT_MS.
   */
  private async untilPoolsMined(provider: JsonRpcProvider): Promise<void> {
    const deadline = Date.now() + POOL_WAIT_MS;
    for (const { address } of this.chain.signers()) {
      for (;;) {
        const [pending, mined] = await Promise.all([provider.getTransactionCount(address, "pending"), provider.getTransactionCount(address, "latest")]);
        if (pending <= mined) break;
        if (Date.now() > deadline)
          throw new LedgerReconcileError(`${pending - mined} transaction(s) of signer ${address} still wait in the node's pool: run again once they are mined`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  private async reconcileSigners(): Promise<SignerReconcileReport[]> {
    const reports: SignerReconcileReport[] = [];
    for (const signer of this.chain.signers()) reports.push(await this.reconcileSigner(signer.address));
    return reports;
  }

  private async firstBlockToRead(): Promise<number> {
    const addresses = this.chain.signers().map((signer) => signer.address);
    const lastConfirmed = await this.store.lastConfirmedBlocks(addresses);
    const blocks = addresses.map((address) => lastConfirmed.get(address) ?? this.config.chain.fromBlock);
    return blocks.length === 0 ? this.config.chain.fromBlock : Math.min(...blocks);
  }

  private async ledgerView(history: { events: RegisteredEvent[]; tickets: SoldTicket[] }) {
    const [events, tickets, transactions] = await Promise.all([
      this.store.events(history.events.map((event) => event.eventIndex)),
      this.store.tickets(history.tickets.map((ticket) => ticket.tokenId)),
      this.store.knownTransactions([...new Set([...history.events, ...history.tickets].map((log) => log.txHash))]),
    ]);
    return { events, tickets, transactions };
  }

  /**
   * Closes the ledger's waiting actions that batches on chain already carried: every batch of the
   * ledger's signers in the blocks read is decoded, in chain order, and each of its items is matched
   * with the oldest waiting action of the same kind on the same event or ticket. Not only the lost
   * part's batches: an action one of the ledger's own batches carried, refused for order and put back
   * in line, may have been sent again by the lost part. An item refused for order (EventUnknown,
   * TicketUnknown) closes nothing. The lost part's items that no waiting action stands for are returned.
   */
  private async closeApplied(
    provider: JsonRpcProvider,
    transactions: string[],
    unknown: ReadonlySet<string>,
    chain: { chainId: bigint; registryAddress: string },
  ): Promise<{ closed: string[]; unmatched: LostBatchItem[] }> {
    const signers = this.chain.signers().map((signer) => signer.address);
    const lost = await readLostBatches(provider, this.chain.registry, chain.registryAddress, signers, transactions);
    const waiting = new Map<string, string[]>();
    for (const action of await this.store.waitingActions()) {
      const key = `${KIND_OF_BATCH_ITEM[action.action]}:${action.subject}`;
      waiting.set(key, [...(waiting.get(key) ?? []), action.id]);
    }
    const applied: AppliedAction[] = [];
    const unmatched: LostBatchItem[] = [];
    for (const item of lost.items) {
      const refusedForOrder = item.failure === RegistryItemFailure.EventUnknown || item.failure === RegistryItemFailure.TicketUnknown;
      const actionId = refusedForOrder ? undefined : waiting.get(`${KIND_OF_BATCH_ITEM[item.action]}:${item.subject}`)?.shift();
      if (actionId) applied.push({ actionId, item });
      else if (unknown.has(item.txHash.toLowerCase())) unmatched.push(item);
    }
    // Holders only of the tokens whose sale, resale or claim the ledger now has; the rest it does not know.
    const moved = new Set(applied.filter(({ item }) => MOVING_KINDS.has(KIND_OF_BATCH_ITEM[item.action])).map(({ item }) => item.subject));
    const closed = await this.store.closeApplied(
      applied,
      lost.holders.filter((change) => moved.has(change.tokenId)),
      chain,
    );
    return { closed, unmatched };
  }

  /** Each lost ticket with its event's key: from the logs read, else from the registry. */
  private async withEventKeys(provider: JsonRpcProvider, history: { events: RegisteredEvent[] }, tickets: SoldTicket[]): Promise<LostTicket[]> {
    const keys = new Map(history.events.map((event) => [event.eventIndex, event.eventKey]));
    const registry = this.chain.registry;
    for (const eventIndex of new Set(tickets.map((ticket) => ticket.eventIndex))) {
      if (keys.has(eventIndex)) continue;
      const answer = await provider.call({ to: this.chain.registryAddress, data: registry.encodeFunctionData("eventRecord", [eventIndex]) }).catch(() => null);
      keys.set(eventIndex, answer === null ? "" : (registry.decodeFunctionResult("eventRecord", answer)[0] as { key: string }).key);
    }
    return tickets.map((ticket) => ({ ...ticket, eventKey: keys.get(ticket.eventIndex) || null }));
  }
}

/** The ledger knows what the chain holds when it holds the same thing under the same index or token. */
function isKnown(expected: string | undefined, hash: string): boolean {
  return expected === hash;
}

function highestEventIndex(history: { events: RegisteredEvent[] }): bigint {
  return history.events.reduce((highest, event) => (event.eventIndex > highest ? event.eventIndex : highest), 0n);
}

function highestSerials(history: { tickets: SoldTicket[] }): Map<bigint, bigint> {
  const highest = new Map<bigint, bigint>();
  for (const ticket of history.tickets) if (ticket.serial > (highest.get(ticket.eventIndex) ?? 0n)) highest.set(ticket.eventIndex, ticket.serial);
  return highest;
}

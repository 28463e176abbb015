import type { JsonRpcProvider } from "ethers";
import type { DataSource } from "typeorm";

import type { AppConfig } from "../../config/app-config";
import type { ChainClient } from "../chain-client";
import { type AppliedAction, LedgerReconcileStore, type LedgerSubject, type SerialMove } from "./ledger-reconcile.store";
import { readRegistryHistory, type RegisteredEvent, type SoldTicket } from "./registry-history";
import { reconcileSignerNonce, type SignerNonceChange } from "./signer-nonces";

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
  /** What this run changed in the ledger; nothing on a second run. */
  changes: {
    eventIndexes: { from: bigint; to: bigint } | null;
    serials: SerialMove[];
    signers: SignerNonceChange[];
    /** The ledger's waiting actions the chain had already applied, now confirmed. */
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
    private readonly dataSource: DataSource,
    private readonly chain: ChainClient,
    private readonly config: AppConfig,
  ) {
    this.store = new LedgerReconcileStore(dataSource);
  }

  async reconcile(): Promise<LedgerReconcileReport> {
    const provider = await this.chain.connect();
    const [chainId, toBlock] = await Promise.all([this.chain.chainId(), provider.getBlockNumber()]);
    const registryAddress = this.chain.registryAddress;
    const signers = await this.reconcileSigners(provider);
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
    const applied = this.appliedActions(history, known);
    const appliedActions = await this.store.markApplied(applied, await blockHashes(provider, applied), { chainId, registryAddress });
    return {
      chainId,
      registryAddress,
      blocks: { from: fromBlock, to: toBlock },
      lostEvents,
      lostTickets,
      changes: {
        eventIndexes: await this.store.moveEventIndexes(highestEventIndex(history)),
        serials: await this.store.moveSerials(highestSerials(history)),
        signers,
        appliedActions,
      },
    };
  }

  private async reconcileSigners(provider: JsonRpcProvider): Promise<SignerNonceChange[]> {
    const changes: SignerNonceChange[] = [];
    for (const signer of this.chain.signers()) changes.push(await reconcileSignerNonce(this.dataSource, provider, signer.address));
    return changes;
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
   * The ledger's waiting newEvent and sold actions whose event or ticket a transaction the ledger has
   * no record of put on chain: sent by the lost part of the ledger before the restore. (What a
   * transaction of the ledger's own did, the receipt watcher closes.)
   */
  private appliedActions(
    history: { events: RegisteredEvent[]; tickets: SoldTicket[] },
    known: Awaited<ReturnType<LedgerReconciler["ledgerView"]>>,
  ): AppliedAction[] {
    const applied: AppliedAction[] = [];
    const take = (subject: LedgerSubject | undefined, hash: string, log: { blockNumber: number; txHash: string }) => {
      if (!subject?.waitingActionId || subject.expectedHash !== hash || known.transactions.has(log.txHash.toLowerCase())) return;
      applied.push({ actionId: subject.waitingActionId, blockNumber: log.blockNumber, txHash: log.txHash });
    };
    for (const event of history.events) take(known.events.get(event.eventIndex), event.eventKey, event);
    for (const ticket of history.tickets) take(known.tickets.get(ticket.tokenId), ticket.ticketHash, ticket);
    return applied;
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
function isKnown(subject: LedgerSubject | undefined, hash: string): boolean {
  return subject !== undefined && subject.expectedHash === hash;
}

function highestEventIndex(history: { events: RegisteredEvent[] }): bigint {
  return history.events.reduce((highest, event) => (event.eventIndex > highest ? event.eventIndex : highest), 0n);
}

function highestSerials(history: { tickets: SoldTicket[] }): Map<bigint, bigint> {
  const highest = new Map<bigint, bigint>();
  for (const ticket of history.tickets) if (ticket.serial > (highest.get(ticket.eventIndex) ?? 0n)) highest.set(ticket.eventIndex, ticket.serial);
  return highest;
}

async function blockHashes(provider: JsonRpcProvider, applied: readonly AppliedAction[]): Promise<Map<number, string>> {
  const hashes = new Map<number, string>();
  for (const block of new Set(applied.map((action) => action.blockNumber))) {
    const found = await provider.getBlock(block);
    if (found?.hash) hashes.set(block, found.hash);
  }
  return hashes;
}

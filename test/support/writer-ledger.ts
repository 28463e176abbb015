import { randomBytes } from "node:crypto";

import { Wallet, ZeroHash } from "ethers";
import type { DataSource, EntityManager } from "typeorm";

import type { RegistrySubjectFacts } from "../../src/chain/writer/restore/registry-subject-facts";
import type { ChainTicketFacts, SubjectFactsReader } from "../../src/chain/writer/restore/subject-facts";
import { SendingStore } from "../../src/chain/writer/sending/sending.store";
import type { NewlySignedTransaction } from "../../src/chain/writer/signed-transaction";
import { ActionRecorder } from "../../src/ledger/action-recorder";
import { KIND_OF_BATCH_ITEM } from "../../src/common/actions";
import type { ChainActionKind } from "../../src/ledger/chain-action-kind";
import type { RegistryBatchItem } from "../../src/registry";
import { openStoreDatabase, type StoreDatabase } from "./store-database";
import { WALLET } from "./fixtures";

/**
 * The ledger as the chain writer's stores find it, for their specs: events, tickets and accepted
 * actions seeded through the ledger's own recorder, and the rows the stores write read back.
 */

/**
 * Far above any index the event sequence hands out in a test, so a shard index from SHARD_BASE up
 * holds the events a test placed there and nothing else (an action's shard is shard_key % SHARD_COUNT).
 */
export const SHARD_COUNT = 2_000_003;
const SHARD_BASE = 1_000_000;

export const CHAIN = { chainId: 80002n, registryAddress: "0x00000000000000000000000000000000000000aa" };
/** A valid EIP-55 wallet address that is nobody's signer. */
export { WALLET };

/** What the registry holds of failed actions' tokens, as a store test states it: the tokens given, every other one never minted. */
export function chainHolds(tickets: ReadonlyMap<bigint, ChainTicketFacts> = new Map()): SubjectFactsReader {
  return async (subjects) => ({
    tickets: new Map(
      subjects.tokenIds.map((tokenId) => [
        tokenId,
        tickets.get(tokenId) ?? { minted: false, checkedIn: false, invalidated: false, claimed: false, holder: null },
      ]),
    ),
  });
}

/** The finalizer's and the unsendable actions' source of chain facts, answering as chainHolds() does. */
export function subjectFactsHolding(reader: SubjectFactsReader = chainHolds()): RegistrySubjectFacts {
  return { at: () => reader } as unknown as RegistrySubjectFacts;
}

export interface SeededTicket {
  ref: string;
  tokenId: bigint;
}

export interface SeededEvent {
  ref: string;
  /** Also the shard its actions are read from, for events made with ownShardEvent. */
  eventIndex: bigint;
  tickets: SeededTicket[];
}

const KIND_OF: Record<RegistryBatchItem["action"], ChainActionKind> = KIND_OF_BATCH_ITEM;

export const sale = (ticket: SeededTicket): RegistryBatchItem => ({
  action: "sold",
  tokenId: ticket.tokenId,
  ticketHash: "0x" + "ab".repeat(32),
  price: "10.00",
  orderTime: 1n,
});
/** The event's registration, as the writer sends it. */
export const registration = (event: SeededEvent): RegistryBatchItem => ({
  action: "registerEvent",
  eventIndex: event.eventIndex,
  eventKey: "0x" + "01".repeat(32),
  ticketeer: "0x" + "02".repeat(32),
  details: {
    name: "n",
    currency: "EUR",
    shopUrl: "",
    imageUrl: "",
    latitude: 0,
    longitude: 0,
    startTime: 1n,
    endTime: 2n,
    organizer: "o",
    metadataHash: ZeroHash,
  },
});
export const checkIn = (ticket: SeededTicket): RegistryBatchItem => ({ action: "checkedIn", tokenId: ticket.tokenId, orderTime: 2n });
export const claim = (ticket: SeededTicket, to = WALLET): RegistryBatchItem => ({ action: "claimed", tokenId: ticket.tokenId, to });

/** A fresh signer address: specs share one database, and each keeps to its own signers. */
export const newSigner = (): string => Wallet.createRandom().address;

/** What a signer would return, with made-up bytes: the stores keep them and never decode them. */
export function fakeSignature(signer: string, nonce: bigint, itemCount: number, maxFeePerGas = 2_000_000_000n): NewlySignedTransaction {
  return {
    signer,
    chainId: CHAIN.chainId,
    nonce,
    hash: "0x" + randomBytes(32).toString("hex"),
    raw: "0x02" + randomBytes(48).toString("hex"),
    gasLimit: 500_000n,
    maxFeePerGas,
    maxPriorityFeePerGas: maxFeePerGas / 2n,
    itemCount,
  };
}

export class WriterLedger {
  private constructor(
    private readonly db: StoreDatabase,
    private readonly organizationId: string,
    /** The next shard of its own an event gets: shared by every organization's view of the ledger. */
    private readonly shards = { next: SHARD_BASE },
  ) {}

  static async open(): Promise<WriterLedger> {
    const db = await openStoreDatabase();
    return new WriterLedger(db, await db.organization("ticketeer-writer"));
  }

  /** The same ledger as another organization sees it: its events and actions are that organization's. */
  async otherOrganization(ticketeerId: string): Promise<WriterLedger> {
    return new WriterLedger(this.db, await this.db.organization(ticketeerId), this.shards);
  }

  get dataSource(): DataSource {
    return this.db.dataSource;
  }

  /** The organization every seeded event and ticket belongs to. */
  get organization(): string {
    return this.organizationId;
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** An event alone in a shard of its own, with `ticketCount` tickets. */
  ownShardEvent(ticketCount: number): Promise<SeededEvent> {
    return this.event(ticketCount, BigInt(this.shards.next++));
  }

  /** An event with `ticketCount` tickets at this registry index; tokenIds follow the registry's layout (index, serial). */
  async event(ticketCount: number, eventIndex: bigint): Promise<SeededEvent> {
    const [event] = await this.sql<{ id: string }>(
      `INSERT INTO events (organization_id, event_id, event_index, currency, callback_url) VALUES ($1, $2, $3, 'EUR', 'https://integrator.example.com/cb') RETURNING id`,
      [this.organizationId, `event-${eventIndex}`, eventIndex.toString()],
    );
    const tickets: SeededTicket[] = [];
    for (let serial = 1; serial <= ticketCount; serial++) {
      const tokenId = (eventIndex << 64n) | BigInt(serial);
      const [ticket] = await this.sql<{ id: string }>(
        `INSERT INTO tickets (organization_id, event_ref, ticket_id, serial, token_id, price, order_time) VALUES ($1, $2, $3, $4, $5, '10.00', 0) RETURNING id`,
        [this.organizationId, event.id, `ticket-${eventIndex}-${serial}`, serial, tokenId.toString()],
      );
      tickets.push({ ref: ticket.id, tokenId });
    }
    return { ref: event.id, eventIndex, tickets };
  }

  /**
   * Accepts the items in one acceptance, in order, as the API would (an event's own action without a
   * ticket), in a transaction of its own or the one given; returns the actions' ids.
   */
  async accept(
    event: SeededEvent,
    items: { ticket: SeededTicket | null; item: RegistryBatchItem }[],
    requestId = "request-1",
    inTransaction?: EntityManager,
  ): Promise<string[]> {
    const accept = async (manager: EntityManager) => {
      const recorder = new ActionRecorder(manager, this.organizationId, requestId);
      const ids = items.map(({ ticket, item }) =>
        recorder.record({
          kind: KIND_OF[item.action],
          requestedAs: KIND_OF[item.action],
          eventRef: event.ref,
          eventIndex: event.eventIndex,
          ticketRef: ticket?.ref ?? null,
          onChain: item,
        }),
      );
      await recorder.flush();
      return ids;
    };
    return inTransaction ? accept(inTransaction) : this.dataSource.transaction(accept);
  }

  /** Ledger rows of these actions, in acceptance order. */
  actionRows(ids: readonly string[]) {
    return this.sql<{
      id: string;
      status: string;
      tx_hash: string | null;
      tx_signer: string | null;
      tx_nonce: string | null;
      batch_index: number | null;
      block_number: string | null;
      block_hash: string | null;
      error_code: string | null;
      error_message: string | null;
      reverted_attempts: number;
    }>(
      `SELECT id, status, tx_hash, tx_signer, tx_nonce, batch_index, block_number, block_hash, error_code, error_message, reverted_attempts FROM chain_actions WHERE id = ANY($1::uuid[]) ORDER BY seq`,
      [ids],
    );
  }

  /** Every attempt of this signer, by nonce then attempt. */
  transactionRows(signer: string) {
    return this.sql<{
      id: string;
      nonce: string;
      attempt: number;
      tx_hash: string;
      status: string;
      broadcast_at: Date | null;
      block_number: string | null;
      block_hash: string | null;
      gas_used: string | null;
    }>(
      `SELECT id, nonce, attempt, tx_hash, status, broadcast_at, block_number, block_hash, gas_used FROM chain_transactions WHERE signer = $1 ORDER BY nonce, attempt`,
      [signer],
    );
  }

  /** The outbox rows of these actions. */
  callbackRows(ids: readonly string[]) {
    return this.sql<{ action_id: string; payload: Record<string, unknown> }>(`SELECT action_id, payload FROM callbacks WHERE action_id = ANY($1::uuid[])`, [
      ids,
    ]);
  }

  /** A new signer, registered in the ledger with its next nonce at `nonce`. */
  async signerAt(nonce: bigint): Promise<string> {
    const signer = newSigner();
    await new SendingStore(this.dataSource).ensureSigner(signer, CHAIN.chainId, nonce);
    return signer;
  }

  /** A batch of one sale, signed at the signer's next nonce and committed as the sending side does (not broadcast). */
  async committedSale(signer: string) {
    const event = await this.ownShardEvent(1);
    await this.accept(event, [{ ticket: event.tickets[0], item: sale(event.tickets[0]) }]);
    const sending = new SendingStore(this.dataSource);
    const waiting = await sending.waitingActions(SHARD_COUNT, Number(event.eventIndex), 10);
    return sending.commitNewTransaction(signer, waiting, async (nonce) => fakeSignature(signer, nonce, 1));
  }

  async nextNonce(signer: string): Promise<string> {
    const [row] = await this.sql<{ next_nonce: string }>(`SELECT next_nonce FROM chain_signers WHERE address = $1`, [signer]);
    return row.next_nonce;
  }

  sql<T>(text: string, params: unknown[] = []): Promise<T[]> {
    return this.dataSource.query<T[]>(text, params);
  }
}

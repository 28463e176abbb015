import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { uuidv7 } from "../../src/common/uuid-v7";
import { HolderProofsStore, type IssuedChallenge, MAX_EVENT_CANDIDATES } from "../../src/holder-proofs/holder-proofs.store";
import { openStoreDatabase, type StoreDatabase } from "../support/store-database";

/**
 * The holder proofs' SQL against PostgreSQL: challenges issued, found only by their organization,
 * consumed once however many proofs race, cleaned up once expired; and the ledger's tokens of an
 * event in one wallet, read from the holder index's range.
 */

const NOW = 1_796_000_000n;
const HOLDER = "0x52908400098527886E0F7030069857D2E4169EE7";
const OTHER_HOLDER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

let db: StoreDatabase;
let store: HolderProofsStore;
let organizationId: string;
let otherOrganizationId: string;

beforeAll(async () => {
  db = await openStoreDatabase();
  store = new HolderProofsStore(db.dataSource);
  organizationId = await db.organization("proofs-a");
  otherOrganizationId = await db.organization("proofs-b");
});

afterAll(async () => {
  await db?.close();
});

let nonces = 0;
const nextNonce = () => "0x" + (++nonces).toString(16).padStart(64, "0");

/** A new event of the organization; its ledger row and registry index. */
async function event(organization = organizationId): Promise<{ eventRef: string; eventId: string; eventIndex: bigint }> {
  const eventRef = uuidv7();
  const eventId = `event-${eventRef.slice(-8)}`;
  const [row] = await db.dataSource.query<{ event_index: string }[]>(
    `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, $3, 'EUR', 'https://integrator.example.com/cb')
     RETURNING event_index::text`,
    [eventRef, organization, eventId],
  );
  return { eventRef, eventId, eventIndex: BigInt(row.event_index) };
}

/** A ticket of the event with serial `serial`, held by `holder` as the chain side records it. */
async function ticket(ev: { eventRef: string; eventIndex: bigint }, serial: bigint, holder: string | null, organization = organizationId): Promise<bigint> {
  const tokenId = (ev.eventIndex << 64n) | serial;
  await db.dataSource.query(
    `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, order_time) VALUES ($1, $2, $3, $4, $5, $6, '10.00', 0)`,
    [uuidv7(), organization, ev.eventRef, `t-${tokenId}`, serial.toString(), tokenId.toString()],
  );
  if (holder)
    await db.dataSource.query(`UPDATE tickets SET holder = $1, holder_block = 1, holder_log_index = 0 WHERE token_id = $2`, [holder, tokenId.toString()]);
  return tokenId;
}

function challenge(eventRef: string, extra: Partial<IssuedChallenge> = {}): IssuedChallenge {
  return {
    nonce: nextNonce(),
    organizationId,
    chainId: 80002n,
    registryAddress: OTHER_HOLDER,
    subject: { kind: "token", tokenId: 7n },
    eventRef,
    expiry: NOW + 120n,
    ...extra,
  };
}

describe("challenges", () => {
  it("are found as issued, with their event's eventId, by their own organization only", async () => {
    const ev = await event();
    const issued = challenge(ev.eventRef, { subject: { kind: "event", eventIndex: ev.eventIndex } });
    await store.issue(issued, NOW);
    expect(await store.find(organizationId, issued.nonce)).toEqual({ ...issued, eventId: ev.eventId, used: false });
    expect(await store.find(otherOrganizationId, issued.nonce)).toBeNull();
    expect(await store.find(organizationId, nextNonce())).toBeNull();
  });

  it("are consumed once: of ten proofs racing, one wins; another organization consumes nothing", async () => {
    const issued = challenge((await event()).eventRef);
    await store.issue(issued, NOW);
    expect(await store.consume(otherOrganizationId, issued.nonce, HOLDER)).toBe(false);
    const results = await Promise.all(Array.from({ length: 10 }, () => store.consume(organizationId, issued.nonce, HOLDER)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.find(organizationId, issued.nonce)).toMatchObject({ used: true });
    const [row] = await db.dataSource.query(`SELECT holder FROM holder_proof_challenges WHERE nonce = decode($1, 'hex')`, [issued.nonce.slice(2)]);
    expect(row.holder).toBe(HOLDER);
  });

  it("past their expiry are deleted as new ones are written; those still live are kept", async () => {
    const { eventRef } = await event();
    const old = challenge(eventRef, { expiry: NOW - 1n });
    const live = challenge(eventRef, { expiry: NOW + 1n });
    await store.issue(old, NOW - 100n);
    await store.issue(live, NOW - 100n);
    await store.issue(challenge(eventRef), NOW);
    expect(await store.find(organizationId, old.nonce)).toBeNull();
    expect(await store.find(organizationId, live.nonce)).not.toBeNull();
  });

  it("refuse a row that names both a token and an event, or a nonce that is not 32 bytes", async () => {
    const { eventRef } = await event();
    await expect(
      db.dataSource.query(
        `INSERT INTO holder_proof_challenges (nonce, organization_id, chain_id, registry_address, token_id, event_ref, event_index, expiry)
       VALUES (decode(repeat('aa', 32), 'hex'), $1, 1, 'r', 1, $2, 1, 1)`,
        [organizationId, eventRef],
      ),
    ).rejects.toThrow(/holder_proof_challenges_subject_check/);
    await expect(store.issue({ ...challenge(eventRef), nonce: "0x1234" }, NOW)).rejects.toThrow(/holder_proof_challenges_nonce_check/);
  });

  it("are looked up and cleaned up through indexes", async () => {
    const indexes = await db.dataSource.query<{ indexdef: string }[]>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'holder_proof_challenges'`);
    expect(indexes.map((index) => index.indexdef).join("\n")).toMatch(/\(nonce\)[\s\S]*\(expiry\)|\(expiry\)[\s\S]*\(nonce\)/);
  });
});

describe("the ledger's subjects", () => {
  it("finds the organization's token and event, not another organization's", async () => {
    const ev = await event();
    const tokenId = await ticket(ev, 1n, HOLDER);
    expect(await store.ledgerToken(organizationId, tokenId)).toEqual({ subject: { kind: "token", tokenId }, eventRef: ev.eventRef, eventId: ev.eventId });
    expect(await store.ledgerToken(otherOrganizationId, tokenId)).toBeNull();
    expect(await store.ledgerEvent(organizationId, ev.eventId)).toEqual({
      subject: { kind: "event", eventIndex: ev.eventIndex },
      eventRef: ev.eventRef,
      eventId: ev.eventId,
    });
    expect(await store.ledgerEvent(otherOrganizationId, ev.eventId)).toBeNull();
  });

  it("lists the event's tokens the ledger records in a wallet: not other events', not other holders', at most the cap", async () => {
    const ev = await event();
    const neighbour = await event();
    const held = [await ticket(ev, 1n, HOLDER), await ticket(ev, 3n, HOLDER)];
    await ticket(ev, 2n, OTHER_HOLDER);
    await ticket(ev, 4n, null);
    await ticket(neighbour, 1n, HOLDER);
    expect(await store.tokensHeldInEvent(organizationId, ev.eventIndex, HOLDER)).toEqual(held);
    expect(await store.tokensHeldInEvent(otherOrganizationId, ev.eventIndex, HOLDER)).toEqual([]);
    const crowded = await event();
    for (let serial = 1n; serial <= BigInt(MAX_EVENT_CANDIDATES) + 5n; serial++) await ticket(crowded, serial, HOLDER);
    expect(await store.tokensHeldInEvent(organizationId, crowded.eventIndex, HOLDER)).toHaveLength(MAX_EVENT_CANDIDATES);
  });

  it("reads them as one range of tickets_holder_idx, not a scan of the organization's tickets", async () => {
    const plan = await db.dataSource.transaction(async (manager) => {
      // The tables are tiny and fresh: with their statistics and scans off, the plan is the one a large table gets.
      await manager.query(`SET LOCAL enable_seqscan = off`);
      await manager.query(`ANALYZE tickets`);
      const rows = await manager.query<{ "QUERY PLAN": string }[]>(
        `EXPLAIN SELECT token_id::text FROM tickets
          WHERE organization_id = $1 AND holder = $2 AND token_id >= $3 AND token_id < $4 AND released_at IS NULL ORDER BY token_id LIMIT 50`,
        [organizationId, HOLDER, "0", "18446744073709551616"],
      );
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
    expect(plan).toMatch(/Index Scan using tickets_holder_idx/);
    expect(plan).toMatch(/Index Cond: \(\(organization_id = .*holder = .*token_id >= .*token_id < /s);
  });
});

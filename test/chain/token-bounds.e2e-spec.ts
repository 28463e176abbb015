import { DataSource } from "typeorm";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";

import { LedgerMetadataStore } from "../../src/tokens/ledger-metadata.store";
import { stream } from "../support/callbacks-e2e";
import { allSettled, tokenIds, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * The public routes spend the node only within bounds. Tokens that cannot exist (an event index past
 * every one handed out, a serial past its event's last) are answered 404 from what the service knows,
 * without a node call or a database query, counted through a JSON-RPC proxy in front of the node; the
 * real tokens stay in the cache however many of those come; the per-IP limits count an IPv6 client
 * by its /64 (TRUST_PROXY=loopback: the client address is X-Forwarded-For's).
 */
const PAGE_LIMIT = 4;
const chainApp = useChainApp({
  productionNode: true,
  env: {
    // The smallest cache: 600 made-up tokenIds would push the real ones out of an insertion-ordered one.
    METADATA_CACHE_WINDOWS: "16",
    METADATA_RATE_LIMIT_REQUESTS: "5000",
    VERIFY_RATE_LIMIT_REQUESTS: String(PAGE_LIMIT),
    VERIFY_RATE_LIMIT_WINDOW_SECONDS: "600",
    TRUST_PROXY: "loopback",
  },
});

let realTokens: bigint[];

beforeAll(async () => {
  const eventId = uid("event");
  const ticketIds = [uid("t"), uid("t"), uid("t")];
  const promises = await stream(chainApp.api, [
    { action: "newEvent", data: { eventId, eventName: "Concert", currency: "EUR", callbackUrl: "https://callbacks.example.com/x" } },
    ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10.00" } })),
  ]);
  expect((await allSettled(chainApp.api, promises)).map((view) => view.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
  realTokens = [...(await tokenIds(chainApp.testApp, ticketIds)).values()];
});

afterEach(() => {
  vi.restoreAllMocks();
});

const metadata = (tokenId: bigint, headers: Record<string, string> = {}) => fetch(`${chainApp.testApp.baseUrl}/tokens/${tokenId}`, { headers });

/** The tokens' metadata, `concurrency` requests at a time; their statuses. */
async function fetchAll(tokens: bigint[], concurrency = 20): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < tokens.length; start += concurrency) {
    const answers = await Promise.all(tokens.slice(start, start + concurrency).map((tokenId) => metadata(tokenId)));
    for (const answer of answers) {
      statuses.push(answer.status);
      await answer.body?.cancel();
    }
  }
  return statuses;
}

describe("tokens that cannot exist", () => {
  it("answers 600 of them 404 with no node call and no database query, and keeps the real tokens cached", async () => {
    for (const tokenId of realTokens) expect((await metadata(tokenId)).status).toBe(200);
    const eventIndex = realTokens[0] >> 64n;
    const lastSerial = realTokens.map((tokenId) => tokenId & 0xffffffffffffffffn).reduce((a, b) => (a > b ? a : b));
    // 300 tokens of events never registered, 300 of the real event past its last serial, each in a window of its own.
    const madeUp = [
      ...Array.from({ length: 300 }, (_, i) => ((eventIndex + 1_000n + BigInt(i)) << 64n) | 1n),
      ...Array.from({ length: 300 }, (_, i) => (eventIndex << 64n) | (lastSerial + 64n * BigInt(i + 1))),
    ];
    const ledgerReads = vi.spyOn(chainApp.testApp.app.get(LedgerMetadataStore), "metadataOf");
    chainApp.productionNode.resetCounts();

    const statuses = await fetchAll(madeUp);
    expect(new Set(statuses)).toEqual(new Set([404]));
    expect(chainApp.productionNode.count("eth_call")).toBe(0);
    expect(chainApp.productionNode.count("eth_getLogs")).toBe(0);
    expect(ledgerReads).not.toHaveBeenCalled();

    // The real tokens were not pushed out: served again without a call.
    for (const tokenId of realTokens) expect((await metadata(tokenId)).status).toBe(200);
    expect(chainApp.productionNode.count("eth_call")).toBe(0);
  });

  it("asks the chain once whether an event index handed out but never registered was, then answers its tokens from memory", async () => {
    const database = chainApp.testApp.app.get(DataSource);
    // An index reserved and left unused (as a refused newEvent leaves one), then an event registered past it.
    const [{ gap }] = await database.query<{ gap: string }[]>("SELECT nextval('registry_event_index_seq')::text AS gap");
    const eventId = uid("event");
    await allSettled(
      chainApp.api,
      await stream(chainApp.api, [{ action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: "https://callbacks.example.com/x" } }]),
    );
    const [{ index }] = await database.query<{ index: string }[]>("SELECT event_index::text AS index FROM events WHERE event_id = $1", [eventId]);
    expect(BigInt(index)).toBeGreaterThan(BigInt(gap));
    expect((await metadata(realTokens[0])).status).toBe(200); // the head has seen the new event's block
    chainApp.productionNode.resetCounts();

    const statuses = await fetchAll(Array.from({ length: 50 }, (_, i) => (BigInt(gap) << 64n) | BigInt(1 + 64 * i)));
    expect(new Set(statuses)).toEqual(new Set([404]));
    expect(chainApp.productionNode.count("eth_getLogs")).toBe(1);
    expect(chainApp.productionNode.count("eth_call")).toBe(0);
  });
});

describe("per-IP limits group IPv6 by /64", () => {
  const page = (forwardedFor: string) => fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${realTokens[0]}`, { headers: { "x-forwarded-for": forwardedFor } });

  it("counts the addresses of one /64 as one client, and another /64 apart", async () => {
    for (let host = 1; host <= PAGE_LIMIT; host++) expect((await page(`2001:db8:7:1::${host.toString(16)}`)).status, `host ${host}`).toBe(200);
    const sameNetwork = await page("2001:db8:7:1:ffff:ffff:ffff:fffe");
    expect(sameNetwork.status).toBe(429);
    expect(sameNetwork.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await page("2001:db8:7:2::1")).status).toBe(200);
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address", async () => {
    for (let i = 0; i < PAGE_LIMIT; i++) expect((await page("::ffff:203.0.113.9")).status).toBe(200);
    expect((await page("203.0.113.9")).status).toBe(429);
  });
});

import canonicalize from "canonicalize";
import { Contract, type EventLog, getBytes, hexlify, Interface, JsonRpcProvider, keccak256, type Log, toUtf8Bytes, ZeroHash } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { stream } from "../support/callbacks-e2e";
import { allSettled, CALLBACK_URL, sqlOf, tokenIds, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";
import { eventually } from "../support/test-chain";

/**
 * A token's metadata changes as a wallet sees it: a plain ethers client that knows ERC-721 and ERC-4906
 * only reads tokenURI, fetches it, and listens for MetadataUpdate / BatchMetadataUpdate. After an
 * updateTicket confirms it hears of exactly the tokens changed, fetches the new image, and the hash it
 * computes of the served document (JCS, keccak-256) is the one the registry's TicketsMetadataUpdated
 * record holds, read from the transaction the notice came in.
 */

/** What a wallet knows: ERC-721's tokenURI and ERC-4906's two events. */
const WALLET_ABI = [
  "function tokenURI(uint256 tokenId) view returns (string)",
  "event MetadataUpdate(uint256 _tokenId)",
  "event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId)",
];
/** What a holder checking the hash adds: the registry's record log (docs/integrators/token-metadata.md). */
const RECORD_ABI = ["event TicketsMetadataUpdated(bytes records)"];

const FIRST_IMAGE = "https://img.example.com/seat-a12.png";
// The JSON fields rich metadata adds: name and attributes, a Seat among them.
const NEW_IMAGE = "https://img.example.com/seat-a12-upgraded.png";

const chainApp = useChainApp();
let wallet: Contract;
let provider: JsonRpcProvider;
/** Every ERC-4906 notice the wallet heard, in order. */
const heard: { from: bigint; to: bigint; txHash: string }[] = [];
const records = new Interface(RECORD_ABI);

beforeAll(async () => {
  await (await chainApp.chain.registry.setBaseURI(`${chainApp.testApp.baseUrl}/tokens/`)).wait();
  // Its own connection, as a wallet has: nothing of the service's.
  provider = new JsonRpcProvider(chainApp.chain.url, undefined, { polling: true, pollingInterval: 100 });
  wallet = new Contract(chainApp.chain.registryAddress, WALLET_ABI, provider);
  await wallet.on("MetadataUpdate", (tokenId: bigint, event: { log: Log }) => heard.push({ from: tokenId, to: tokenId, txHash: event.log.transactionHash }));
  await wallet.on("BatchMetadataUpdate", (from: bigint, to: bigint, event: { log: Log }) => heard.push({ from, to, txHash: event.log.transactionHash }));
});

afterAll(async () => {
  await wallet?.removeAllListeners();
  provider?.destroy();
});

/** An event and `count` tickets sold on it, each with its own image unless `withImage` is false; all confirmed. */
async function soldTickets(count: number, withImage = true): Promise<{ eventId: string; ticketIds: string[]; tokenIds: bigint[]; salePromises: string[] }> {
  const eventId = uid("event");
  const ticketIds = Array.from({ length: count }, () => uid("ticket"));
  const promises = await stream(chainApp.api, [
    {
      action: "newEvent",
      data: { eventId, eventName: "Arena night", currency: "EUR", imageUrl: "https://img.example.com/event.png", callbackUrl: CALLBACK_URL },
    },
    ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "30.00", ...(withImage ? { uri: FIRST_IMAGE } : {}) } })),
  ]);
  expect(new Set((await allSettled(chainApp.api, promises)).map((view) => view.status))).toEqual(new Set(["confirmed"]));
  const ids = await tokenIds(chainApp.testApp, ticketIds);
  return { eventId, ticketIds, tokenIds: ticketIds.map((ticketId) => ids.get(ticketId)!), salePromises: promises.slice(1) };
}

/** What the wallet's fetch of tokenURI answers. */
async function walletFetch(tokenId: bigint): Promise<{ body: any; hashHeader: string | null }> {
  const uri = (await wallet.tokenURI(tokenId)) as string;
  const response = await fetch(uri);
  expect(response.status).toBe(200);
  return { body: await response.json(), hashHeader: response.headers.get("x-metadata-hash") };
}

/** The hash a holder computes of the served document: RFC 8785 JSON, keccak-256. */
const holderHash = (document: Record<string, unknown>) => keccak256(toUtf8Bytes(canonicalize(document)!));

/** The registry's TicketsMetadataUpdated records of a transaction, as (tokenId, hash) pairs. */
async function recordsOf(txHash: string): Promise<[bigint, string][]> {
  const receipt = await provider.getTransactionReceipt(txHash);
  const found: [bigint, string][] = [];
  for (const log of receipt!.logs) {
    if (log.address !== chainApp.chain.registryAddress) continue;
    const parsed = records.parseLog(log);
    if (!parsed) continue;
    const bytes = getBytes(parsed.args.records as string);
    for (let at = 0; at < bytes.length; at += 48)
      found.push([
        BigInt("0x" + Buffer.from(bytes.subarray(at, at + 16)).toString("hex")),
        "0x" + Buffer.from(bytes.subarray(at + 16, at + 48)).toString("hex"),
      ]);
  }
  return found;
}

/** A token's latest TicketsMetadataUpdated record, found as the docs show a holder: a scan of the registry's logs. */
async function latestRecordByScan(tokenId: bigint): Promise<string | null> {
  const registry = new Contract(chainApp.chain.registryAddress, RECORD_ABI, provider);
  let recorded: string | null = null;
  for (const log of await registry.queryFilter(registry.filters.TicketsMetadataUpdated(), 0)) {
    const bytes = getBytes((log as EventLog).args.records as string);
    for (let at = 0; at < bytes.length; at += 48)
      if (BigInt(hexlify(bytes.subarray(at, at + 16))) === tokenId) recorded = hexlify(bytes.subarray(at + 16, at + 48));
  }
  return recorded;
}

/** The ERC-4906 notices of a transaction, as the chain's own logs hold them. */
async function noticesOf(txHash: string): Promise<{ from: bigint; to: bigint }[]> {
  const receipt = await provider.getTransactionReceipt(txHash);
  return receipt!.logs.flatMap((log) => {
    const parsed = wallet.interface.parseLog(log);
    if (!parsed) return [];
    return parsed.name === "MetadataUpdate"
      ? [{ from: parsed.args[0] as bigint, to: parsed.args[0] as bigint }]
      : [{ from: parsed.args[0] as bigint, to: parsed.args[1] as bigint }];
  });
}

describe("a ticket's changed image, seen by a wallet", () => {
  it("is heard of through MetadataUpdate once updateTicket confirms, shown with its name and seat, and its hash is the chain's record", async () => {
    const {
      ticketIds,
      tokenIds: [tokenId],
      salePromises,
    } = await soldTickets(1);
    const before = await walletFetch(tokenId);
    expect(before.body.image).toBe(FIRST_IMAGE);
    // The sale went with its metadata: the chain records the first image's hash already.
    const [sale] = await allSettled(chainApp.api, salePromises);
    expect(sale.action).toBe("sold");
    expect(await recordsOf(sale.txHash)).toEqual([[tokenId, holderHash({ uri: FIRST_IMAGE })]]);
    expect(before.body.metadata_hash).toBe(holderHash({ uri: FIRST_IMAGE }));

    const change = { uri: NEW_IMAGE, name: "Arena night, seat 14C", attributes: [{ traitType: "Seat", value: "14C" }] };
    const [promise] = await stream(chainApp.api, [{ action: "updateTicket", data: { ticketId: ticketIds[0], ...change } }]);
    const accepted = (await chainApp.api.get(`/api/v1/actions/${promise}`)).body;
    expect(["waiting_broadcast", "pending", "confirmed"]).toContain(accepted.status);
    const [update] = await allSettled(chainApp.api, [promise]);
    expect(update).toMatchObject({ action: "updateTicket", status: "confirmed", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });

    const notice = await eventually(async () => heard.find((entry) => entry.txHash === update.txHash), 20_000, "the wallet to hear of the update");
    expect(notice).toEqual({ from: tokenId, to: tokenId, txHash: update.txHash });

    const after = await walletFetch(tokenId);
    expect(after.body).toMatchObject({ image: NEW_IMAGE, name: change.name });
    expect(after.body.attributes).toContainEqual({ trait_type: "Seat", value: "14C" });
    expect(after.body.metadata_document).toEqual(change);
    const computed = holderHash(after.body.metadata_document);
    expect(after.body.metadata_hash).toBe(computed);
    expect(after.hashHeader).toBe(computed);
    // The chain's record, in the transaction the notice came in: the hash of what the wallet now shows.
    expect(await recordsOf(notice.txHash)).toEqual([[tokenId, computed]]);
    expect(await noticesOf(update.txHash)).toEqual([{ from: tokenId, to: tokenId }]);
    // The holder's check of docs/integrators/token-metadata.md: the registry's logs scanned, trusting the chain alone.
    expect(await latestRecordByScan(tokenId)).toBe(computed);

    const page = await (await fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${tokenId}`)).text();
    expect(page).toContain('data-value="matches"');
    expect(page).toContain(`<code data-fact="recorded-metadata-hash">${computed}</code>`);
    expect(page).toContain(`<code data-fact="metadata-tx">${update.txHash}</code>`);
  });

  it("shows a change made behind the chain's back as differing from the record", async () => {
    const {
      ticketIds,
      tokenIds: [tokenId],
    } = await soldTickets(1);
    // Whoever runs the server edits the ticket's row directly: nothing goes on chain.
    await sqlOf(chainApp.testApp)(`UPDATE tickets SET name = 'Forged seat' WHERE ticket_id = $1`, [ticketIds[0]]);
    const served = await walletFetch(tokenId);
    expect(served.body.name).toBe("Forged seat");
    expect(await latestRecordByScan(tokenId)).not.toBe(holderHash(served.body.metadata_document));
    const page = await (await fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${tokenId}`)).text();
    expect(page).toContain('data-value="differs"');
  });

  it("tells of consecutive tokens updated together with one BatchMetadataUpdate over exactly them, each recorded", async () => {
    const { ticketIds, tokenIds: tokens } = await soldTickets(3);
    const images = tokens.map((_, index) => `https://img.example.com/seat-b${index}.png`);
    const promises = await stream(
      chainApp.api,
      ticketIds.map((ticketId, index) => ({ action: "updateTicket", data: { ticketId, uri: images[index] } })),
    );
    const views = await allSettled(chainApp.api, promises);
    expect(views.map((view) => view.status)).toEqual(["confirmed", "confirmed", "confirmed"]);
    const txs = [...new Set(views.map((view) => view.txHash as string))];
    const notices = (await Promise.all(txs.map(noticesOf))).flat().filter((notice) => notice.to >= tokens[0] && notice.from <= tokens[2]);
    const signalled = notices.flatMap(({ from, to }) => Array.from({ length: Number(to - from) + 1 }, (_, index) => from + BigInt(index)));
    expect(signalled.sort()).toEqual(tokens);
    if (txs.length === 1) expect(notices).toEqual([{ from: tokens[0], to: tokens[2] }]);
    const recorded = new Map((await Promise.all(txs.map(recordsOf))).flat());
    for (const [index, tokenId] of tokens.entries()) {
      const served = await walletFetch(tokenId);
      expect(served.body.image).toBe(images[index]);
      expect(recorded.get(tokenId)).toBe(holderHash(served.body.metadata_document));
    }
  });

  it("sells a ticket without metadata as a plain sale: no record, and the page says none is recorded", async () => {
    const {
      tokenIds: [tokenId],
      salePromises,
    } = await soldTickets(1, false);
    const [sale] = await allSettled(chainApp.api, salePromises);
    expect(await recordsOf(sale.txHash)).toEqual([]);
    const [row] = await sqlOf(chainApp.testApp)(`SELECT payload->>'action' AS item FROM chain_actions WHERE id = $1`, [sale.actionPromise]);
    expect(row.item).toBe("sold");
    const served = await walletFetch(tokenId);
    expect(served.body.metadata_document).toEqual({});
    const page = await (await fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${tokenId}`)).text();
    expect(page).toContain('data-value="none"');
  });

  it("refuses an updateTicket of a cancelled event's ticket at acceptance, as the registry would", async () => {
    const { eventId, ticketIds } = await soldTickets(1);
    await allSettled(chainApp.api, await stream(chainApp.api, [{ action: "cancelledEvent", data: { eventId } }]));
    const answer = await chainApp.api.post("/stream", [{ action: "updateTicket", data: { ticketId: ticketIds[0], uri: NEW_IMAGE } }]);
    expect(answer.body.data[0]).toMatchObject({ status: "error", error: { code: "event_cancelled", field: "ticketId" } });
    expect((await walletFetch((await tokenIds(chainApp.testApp, ticketIds)).get(ticketIds[0])!)).body.metadata_document).toEqual({ uri: FIRST_IMAGE });
  });
});

describe("an event's change, seen by a wallet", () => {
  it("goes on chain for an image change and tells of every token of the event in one BatchMetadataUpdate", async () => {
    const {
      eventId,
      tokenIds: [tokenId],
    } = await soldTickets(1, false);
    const [promise] = await stream(chainApp.api, [{ action: "updateEvent", data: { eventId, imageUrl: "https://img.example.com/event-2.png" } }]);
    const [view] = await allSettled(chainApp.api, [promise]);
    expect(view).toMatchObject({ action: "updateEvent", status: "confirmed" });
    const eventIndex = tokenId >> 64n;
    expect(await noticesOf(view.txHash)).toEqual([{ from: (eventIndex << 64n) | 1n, to: (eventIndex << 64n) | ((1n << 64n) - 1n) }]);
    await eventually(async () => heard.find((entry) => entry.txHash === view.txHash), 20_000, "the wallet to hear of the event update");
    expect((await walletFetch(tokenId)).body.image).toBe("https://img.example.com/event-2.png");
    // The event's off-chain metadata is empty: its details say so with the registry's "no metadata".
    const updated = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.EventUpdated(eventIndex));
    expect(updated.at(-1)!.args.details.metadataHash).toBe(ZeroHash);

    // A change of its off-chain metadata alone goes on chain too: its hash is in the details, and wallets are told.
    const [described] = await stream(chainApp.api, [{ action: "updateEvent", data: { eventId, description: "Doors at 7" } }]);
    const [second] = await allSettled(chainApp.api, [described]);
    expect(second).toMatchObject({ action: "updateEvent", status: "confirmed" });
    expect(await noticesOf(second.txHash)).toEqual([{ from: (eventIndex << 64n) | 1n, to: (eventIndex << 64n) | ((1n << 64n) - 1n) }]);
    const latest = await chainApp.chain.registry.queryFilter(chainApp.chain.registry.filters.EventUpdated(eventIndex));
    expect(latest.at(-1)!.args.details.metadataHash).toBe(holderHash({ description: "Doors at 7" }));
    const pageOf = async () => (await fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${tokenId}`)).text();
    expect(await pageOf()).toContain('data-fact="event-metadata-verdict" data-value="matches"');
    // Edited behind the chain's back, the event's served metadata no longer matches its details on chain.
    await sqlOf(chainApp.testApp)(`UPDATE events SET description = 'Forged' WHERE event_id = $1`, [eventId]);
    expect(await pageOf()).toContain('data-fact="event-metadata-verdict" data-value="differs"');
  });
});

import { EventSource } from "eventsource";
import { Contract, type ContractTransactionResponse, getAddress, parseEther, type TransactionResponse, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { apiClient } from "../support/api-client";
import { stream, verifyCallback } from "../support/callbacks-e2e";
import { allSettled, tokenIds, uid } from "../support/chain-e2e";
import { metadataProblems } from "../support/erc721-metadata";

import { scrapeMetrics } from "../support/metrics-scrape";
import { eventually, HARDHAT_KEYS } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * The token a fan holds, seen as a wallet sees it (a plain ERC-721 client: tokenURI, then an HTTP fetch of
 * it; contractURI likewise), and followed by the service after the claim: the holder moves it twice with
 * safeTransferFrom from its own key, and the ticket view, the holder list and exactly two signed
 * `transferred` callbacks follow, the live status stream too.
 */

/** What a wallet knows of an ERC-721 contract: the standard's functions and ERC-7572's contractURI, nothing of the registry. */
const PLAIN_ERC721_ABI = [
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function balanceOf(address owner) view returns (uint256)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function name() view returns (string)",
  "function contractURI() view returns (string)",
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function safeTransferFrom(address from, address to, uint256 tokenId)",
];

const IMAGE = "https://img.example.com/concert.png";
const EVENT = {
  eventName: "Concert in the Park",
  ticketeerName: "Example Tickets B.V.",
  currency: "EUR",
  imageUrl: IMAGE,
  latitude: 52.3731,
  longitude: 4.8922,
  startTime: 1_900_000_000,
  endTime: 1_900_010_800,
};

let wallets: { alice: Wallet; bob: Wallet; carol: Wallet };
let erc721: Contract;
let event: { eventId: string; ticketId: string; tokenId: bigint };
const sources: EventSource[] = [];

const chainApp = useChainApp({ receiver: true, env: { TRANSFER_POLL_MS: "100" } });

beforeAll(async () => {
  // What the deploy script sets from PUBLIC_BASE_URL; here the service's address is known only now.
  // Sent without waiting in between (one block for all on Anvil), each from its own account's next nonce.
  const sent: TransactionResponse[] = [
    await chainApp.chain.registry.setBaseURI(`${chainApp.testApp.baseUrl}/tokens/`),
    await chainApp.chain.registry.setContractURI(`${chainApp.testApp.baseUrl}/tokens/collection`),
  ];
  const [alice, bob, carol] = [0, 1, 2].map(() => new Wallet(Wallet.createRandom().privateKey, chainApp.chain.provider));
  const funder = new Wallet(HARDHAT_KEYS[3], chainApp.chain.provider);
  for (const wallet of [alice, bob, carol]) sent.push(await funder.sendTransaction({ to: wallet.address, value: parseEther("1") }));
  await Promise.all(sent.map((tx) => tx.wait()));
  wallets = { alice, bob, carol };
  erc721 = new Contract(chainApp.chain.registryAddress, PLAIN_ERC721_ABI, chainApp.chain.provider);
  event = await claimedTicket(wallets.alice.address);
});

afterAll(() => {
  for (const source of sources) source.close();
});

/** An event with an image, a sale, a check-in and a claim to `wallet`, all confirmed. */
async function claimedTicket(wallet: string): Promise<{ eventId: string; ticketId: string; tokenId: bigint }> {
  const eventId = uid("event");
  const ticketId = uid("ticket");
  const promises = await stream(chainApp.api, [
    { action: "newEvent", data: { eventId, ...EVENT, callbackUrl: chainApp.receiver.url("/callbacks") } },
    { action: "soldTicket", data: { eventId, ticketId, price: "49.95" } },
    { action: "scannedTicket", data: { ticketId } },
    { action: "claimedTicket", data: { ticketId, to: wallet } },
  ]);
  expect((await allSettled(chainApp.api, promises)).map((status) => status.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
  return { eventId, ticketId, tokenId: (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)! };
}

async function fetchJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: response.status === 304 ? null : await response.json() };
}

const attribute = (metadata: any, trait: string) => metadata.attributes.find((entry: any) => entry.trait_type === trait)?.value;

async function transfer(from: Wallet, to: string, tokenId: bigint) {
  const tx = (await (erc721.connect(from) as Contract).safeTransferFrom(from.address, to, tokenId)) as ContractTransactionResponse;
  const receipt = await tx.wait();
  return { hash: tx.hash, blockNumber: receipt!.blockNumber, blockHash: receipt!.blockHash };
}

describe("a claimed ticket read by a plain ERC-721 client", () => {
  it("leads from tokenURI to metadata JSON that EIP-721's schema and OpenSea's attributes take, true to the chain", async () => {
    const { tokenId } = event;
    expect(await erc721.ownerOf(tokenId)).toBe(wallets.alice.address);
    expect(await erc721.supportsInterface("0x49064906")).toBe(true);
    const uri = (await erc721.tokenURI(tokenId)) as string;
    expect(uri).toBe(`${chainApp.testApp.baseUrl}/tokens/${tokenId}`);

    const answer = await fetchJson(uri, { Origin: "https://wallet.example" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(answer.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
    expect(answer.headers.get("etag")).toBeTruthy();
    expect(metadataProblems("eip721", answer.body)).toEqual([]);
    expect(metadataProblems("opensea", answer.body)).toEqual([]);
    const serial = tokenId & ((1n << 64n) - 1n);
    expect(answer.body).toMatchObject({
      name: `${EVENT.eventName} #${serial}`,
      image: IMAGE,
      external_url: `${chainApp.testApp.baseUrl}/verify/tokens/${tokenId}`,
    });
    expect(answer.body.attributes).toEqual(
      expect.arrayContaining([
        { trait_type: "Event", value: EVENT.eventName },
        { trait_type: "Organizer", value: EVENT.ticketeerName },
        { trait_type: "Start", display_type: "date", value: EVENT.startTime },
        { trait_type: "End", display_type: "date", value: EVENT.endTime },
        { trait_type: "Venue latitude", value: EVENT.latitude },
        { trait_type: "Venue longitude", value: EVENT.longitude },
        { trait_type: "State", value: "Claimed" },
        { trait_type: "Resales", display_type: "number", value: 0 },
        { trait_type: "Last price", display_type: "number", value: 49.95 },
        { trait_type: "Currency", value: "EUR" },
      ]),
    );
    // The raw ids never reach the chain, so they never reach the metadata.
    expect(JSON.stringify(answer.body)).not.toContain(event.ticketId);
    expect(JSON.stringify(answer.body)).not.toContain(event.eventId);

    const again = await fetchJson(uri, { "If-None-Match": answer.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  it("leads from contractURI to the collection's metadata (ERC-7572)", async () => {
    const uri = (await erc721.contractURI()) as string;
    expect(uri).toBe(`${chainApp.testApp.baseUrl}/tokens/collection`);
    const answer = await fetchJson(uri);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("access-control-allow-origin")).toBe("*");
    expect(metadataProblems("erc7572", answer.body)).toEqual([]);
    expect(answer.body).toMatchObject({ name: await erc721.name(), symbol: "TICKET", external_link: chainApp.testApp.baseUrl });
    expect(typeof answer.body.description).toBe("string");
  });

  it("shows the token's public page at its external_url, by tokenId, with its holder", async () => {
    const page = await fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${event.tokenId}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`data-fact="holder">${wallets.alice.address}`);
    expect(html).toContain(EVENT.eventName);
    expect(html).not.toContain(event.ticketId);
    expect((await fetch(`${chainApp.testApp.baseUrl}/verify/tokens/${((event.tokenId >> 64n) << 64n) | 999n}`)).status).toBe(404);
  });

  it("answers a JSON 404 for a token never minted, a 400 for a malformed id, and a CORS preflight", async () => {
    for (const unminted of [((event.tokenId >> 64n) << 64n) | 999n, 1n, (1n << 200n) + 7n]) {
      const answer = await fetchJson(`${chainApp.testApp.baseUrl}/tokens/${unminted}`);
      expect(answer.status, String(unminted)).toBe(404);
      expect(answer.body).toMatchObject({ status: "error", error: { code: "token_not_found" } });
    }
    for (const malformed of ["abc", "-1", "0x10", "1".repeat(79), (1n << 256n).toString()]) {
      const answer = await fetchJson(`${chainApp.testApp.baseUrl}/tokens/${malformed}`);
      expect(answer.status, malformed).toBe(400);
      expect(answer.body).toMatchObject({ status: "error", error: { code: "invalid_field", field: "tokenId" } });
    }
    const preflight = await fetch(`${chainApp.testApp.baseUrl}/tokens/${event.tokenId}`, {
      method: "OPTIONS",
      headers: { Origin: "https://wallet.example", "Access-Control-Request-Method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
  });
});

describe("the service follows the token after the claim", () => {
  it("records two wallet transfers: the view, the holder list, the live stream and exactly two signed callbacks follow", async () => {
    const { alice, bob, carol } = wallets;
    const { eventId, ticketId, tokenId } = event;
    const streamed = openStream(`eventId=${encodeURIComponent(eventId)}&ticketId=${encodeURIComponent(ticketId)}`);

    const first = await transfer(alice, bob.address, tokenId);
    const second = await transfer(bob, carol.address, tokenId);
    expect(await erc721.ownerOf(tokenId)).toBe(carol.address);

    const view = await eventually(
      async () => {
        const answer = await chainApp.api.get(`/api/v1/tickets/${ticketId}`);
        return answer.body.holder === carol.address ? answer.body : undefined;
      },
      30_000,
      "the ticket's holder to be the second transfer's receiver",
    );
    expect(view).toMatchObject({ state: "claimed", claimed: true, claimedTo: alice.address, holder: carol.address });
    const transferred = view.actions.filter((action: any) => action.action === "transferred");
    expect(transferred.map((action: any) => [action.requestedAs, action.status, action.txHash, action.blockNumber, action.blockHash, action.transfer])).toEqual(
      [
        ["chain", "confirmed", first.hash, first.blockNumber, first.blockHash, { from: alice.address, to: bob.address }],
        ["chain", "confirmed", second.hash, second.blockNumber, second.blockHash, { from: bob.address, to: carol.address }],
      ],
    );

    const callbacks = await eventually(
      async () => {
        const found = chainApp.receiver.requests("/callbacks").filter((request) => JSON.parse(request.body).action === "transferred");
        return found.length >= 2 ? found : undefined;
      },
      30_000,
      "two transferred callbacks",
    );
    const bodies = callbacks.map((request) => verifyCallback(request, chainApp.organization.webhookSecret));
    expect(bodies).toEqual([
      expect.objectContaining({
        transactionType: "ticket",
        action: "transferred",
        eventId,
        ticketId,
        tokenId: tokenId.toString(),
        from: alice.address,
        to: bob.address,
        txHash: first.hash,
        blockNumber: first.blockNumber,
        blockHash: first.blockHash,
        status: "confirmed",
        actionPromise: transferred[0].actionPromise,
      }),
      expect.objectContaining({ from: bob.address, to: carol.address, txHash: second.hash, blockNumber: second.blockNumber, blockHash: second.blockHash }),
    ]);

    const holderList = await chainApp.api.get(`/api/v1/tickets?holder=${carol.address.toLowerCase()}`);
    expect(holderList.status).toBe(200);
    expect(holderList.body).toEqual({ data: [view], nextCursor: null });
    expect((await chainApp.api.get(`/api/v1/tickets?holder=${alice.address}`)).body).toEqual({ data: [], nextCursor: null });

    await eventually(async () => (streamed.filter((entry) => entry.action === "transferred").length >= 2 ? true : undefined), 20_000, "the stream's transfers");
    expect(streamed.filter((entry) => entry.action === "transferred").map((entry) => [entry.status, entry.transfer])).toEqual([
      ["confirmed", { from: alice.address, to: bob.address }],
      ["confirmed", { from: bob.address, to: carol.address }],
    ]);

    // The metadata does not show the holder: the claimed state stays.
    expect(attribute((await fetchJson(`${chainApp.testApp.baseUrl}/tokens/${tokenId}`)).body, "State")).toBe("Claimed");
    // Exactly once: later passes of the follower add nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(chainApp.receiver.requests("/callbacks").filter((request) => JSON.parse(request.body).action === "transferred")).toHaveLength(2);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body.actions.filter((action: any) => action.action === "transferred")).toHaveLength(2);
    const recorded = (await scrapeMetrics(chainApp.testApp.opsUrl)).samples.find((sample) => sample.name === "ticket_registry_chain_transfers_recorded_total");
    expect(recorded?.value).toBe(2);

    // In the callback log like any callback, and redeliverable: the same body and webhook-id again.
    const logged = (await chainApp.api.get(`/api/v1/callbacks?eventId=${encodeURIComponent(eventId)}`)).body.filter(
      (entry: any) => entry.action === "transferred",
    );
    expect(logged.map((entry: any) => [entry.actionPromise, entry.status])).toEqual(
      expect.arrayContaining([
        [transferred[0].actionPromise, "delivered"],
        [transferred[1].actionPromise, "delivered"],
      ]),
    );
    const firstLogged = logged.find((entry: any) => entry.actionPromise === transferred[0].actionPromise);
    expect((await chainApp.api.post(`/api/v1/callbacks/${firstLogged.callbackId}/redeliver`, {})).status).toBe(200);
    const again = await eventually(
      async () => {
        const sent = chainApp.receiver.requests("/callbacks").filter((request) => request.headers["webhook-id"] === firstLogged.callbackId);
        return sent.length === 2 ? sent : undefined;
      },
      20_000,
      "the redelivered transfer callback",
    );
    expect(again[1].body).toBe(again[0].body);
  });

  it("lists the tickets an address holds a page at a time, only the organization's own", async () => {
    const eventId = uid("event");
    const ticketIds = [uid("t"), uid("t"), uid("t")];
    await allSettled(
      chainApp.api,
      await stream(chainApp.api, [
        { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: chainApp.receiver.url("/other") } },
        ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10" } })),
      ]),
    );
    const custody = getAddress((await chainApp.chain.registry.eventRecord((await tokenIds(chainApp.testApp, ticketIds)).get(ticketIds[0])! >> 64n)).custody);
    const first = await chainApp.api.get(`/api/v1/tickets?holder=${custody}&limit=2`);
    expect(first.body.data.map((ticket: any) => ticket.ticketId)).toEqual(ticketIds.slice(0, 2));
    expect(first.body.data.every((ticket: any) => ticket.holder === custody)).toBe(true);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await chainApp.api.get(`/api/v1/tickets?holder=${custody}&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toMatchObject({ data: [{ ticketId: ticketIds[2] }], nextCursor: null });

    const stranger = apiClient(chainApp.testApp.baseUrl, (await chainApp.testApp.organization()).key);
    expect((await stranger.get(`/api/v1/tickets?holder=${custody}`)).body).toEqual({ data: [], nextCursor: null });
  });

  it("refuses a malformed holder query with a 400 that names the parameter", async () => {
    for (const [query, field] of [
      ["holder=0x1234", "holder"],
      ["", "holder"],
      // EIP-55's example address with its last letter's case flipped: mixed case, and not its checksum.
      ["holder=0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", "holder"],
      [`holder=${wallets.carol.address}&limit=0`, "limit"],
      [`holder=${wallets.carol.address}&limit=101`, "limit"],
      [`holder=${wallets.carol.address}&cursor=%2A%2A`, "cursor"],
    ]) {
      const answer = await chainApp.api.get(`/api/v1/tickets?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ status: "error", error: { code: "invalid_field", field } });
    }
  });
});

/** The `status` events of the live status stream with this filter, as they arrive. */
function openStream(query: string): any[] {
  const received: any[] = [];
  const source = new EventSource(`${chainApp.testApp.baseUrl}/api/v1/actions/events?${query}`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-api-key": chainApp.organization.key } }),
  });
  source.addEventListener("status", (message) => received.push(JSON.parse(message.data)));
  sources.push(source);
  return received;
}

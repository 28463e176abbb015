import { request as httpRequest } from "node:http";

import { describe, expect, it } from "vitest";

import { stream } from "../support/callbacks-e2e";
import { allSettled, sqlOf, tokenIds, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";
import { eventBody, newEventData, soldItem } from "../support/fixtures";

/**
 * What the token and the pages can be made to show, through the real app on a chain: a ticket's uri
 * (the token's image) takes https, ipfs and ar only, on every path that takes one; a uri stored before
 * that rule is never served as the image; ids refuse characters that hide or reorder text, and ids of
 * only dots; and without PUBLIC_BASE_URL no request's Host header reaches the tokens' cacheable answers.
 */

const IMAGE = "https://img.example.com/event.png";

const chainApp = useChainApp();

/** A uri refused on every path that takes one: what a wallet would run, render as a document, or fetch in the clear. */
const UNSAFE_URIS = [
  "javascript:alert(1)",
  "JavaScript:alert(document.domain)",
  "javascript://img.example.com/%0Aalert(1)",
  "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
  "data:image/svg+xml,<svg onload=alert(1)>",
  "http://img.example.com/ticket.png",
  "file:///etc/passwd",
  "vbscript:msgbox(1)",
  "ftp://img.example.com/ticket.png",
  "//img.example.com/ticket.png",
  "ipfs:bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
  'https://img.example.com/"><script>alert(1)</script>',
];

const SAFE_URIS = [
  "https://img.example.com/ticket/1.png",
  "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/1.json",
  "ar://Q2Wl1bnTgDRi0A9Q-aX5Oj1Yw0fFfeRZ4j4RbkG3wT0",
  "IPFS://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
];

/** An id refused wherever an id is taken, and why. */
const REFUSED_IDS: [string, string][] = [
  ["a tab (C0 control)", "ticket\t1"],
  ["U+0001 (C0 control)", "\u0001ticket"],
  ["DEL", "ticket\u007f"],
  ["U+0085 (C1 control)", "ticket\u0085"],
  ["U+202E RIGHT-TO-LEFT OVERRIDE", "\u202Etxt.exe"],
  ["U+202A LEFT-TO-RIGHT EMBEDDING", "a\u202Ab"],
  ["U+2066 LEFT-TO-RIGHT ISOLATE", "a\u2066b\u2069"],
  ["U+200E LEFT-TO-RIGHT MARK", "ticket\u200E"],
  ["U+061C ARABIC LETTER MARK", "\u061Cticket"],
  ["U+200B ZERO WIDTH SPACE", "ticket\u200B1"],
  ["U+200D ZERO WIDTH JOINER", "a\u200Db"],
  ["U+2060 WORD JOINER", "a\u2060b"],
  ["U+FEFF ZERO WIDTH NO-BREAK SPACE", "\uFEFFticket"],
  ["one dot", "."],
  ["two dots", ".."],
  ["three dots", "..."],
];

async function registeredEvent(extra: Record<string, unknown> = {}): Promise<string> {
  const eventId = uid("event");
  await stream(chainApp.api, [{ action: "newEvent", data: newEventData(eventId, extra) }]);
  return eventId;
}

/** A GET with a Host header of the caller's choosing (fetch sets its own). */
function getWithHost(path: string, host: string): Promise<{ status: number; body: any; cacheControl: string | undefined }> {
  const url = new URL(chainApp.testApp.baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: url.hostname, port: url.port, path, headers: { host } }, (incoming) => {
      let text = "";
      incoming.setEncoding("utf8");
      incoming.on("data", (chunk: string) => (text += chunk));
      incoming.on("end", () => resolve({ status: incoming.statusCode!, body: JSON.parse(text), cacheControl: incoming.headers["cache-control"] }));
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

describe("a ticket's uri takes https, ipfs and ar only", () => {
  it.each(UNSAFE_URIS)("refuses %s on soldTicket, updateTicket and POST /api/v1/sold, as invalid_field naming uri and saying why", async (uri) => {
    const eventId = await registeredEvent();
    const kept = uid("ticket");
    const answer = await chainApp.api.post("/stream", [
      { action: "soldTicket", data: { eventId, ticketId: kept, price: "10.00" } },
      { action: "soldTicket", data: { eventId, ticketId: uid("ticket"), price: "10.00", uri } },
      { action: "updateTicket", data: { ticketId: kept, uri } },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((entry: { status: string }) => entry.status)).toEqual(["success", "error", "error"]);
    for (const entry of answer.body.data.slice(1)) {
      expect(entry.error).toMatchObject({ code: "invalid_field", field: "uri" });
      expect(entry.error.message).toMatch(/^uri must be an https, ipfs:\/\/ or ar:\/\/ URI/);
    }
    const sold = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, uid("ticket"), { uri })]);
    expect(sold.status).toBe(200);
    expect(sold.body[0]).toMatchObject({ status: "error", error: { code: "invalid_field", field: "uri" } });
    expect((await chainApp.api.get(`/api/v1/tickets/${kept}`)).body.uri).toBe("");
  });

  it("says which scheme it refused and why", async () => {
    const eventId = await registeredEvent();
    const answer = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, uid("ticket"), { uri: "javascript:alert(1)" })]);
    expect(answer.body[0].error.message).toContain('"javascript:" is refused');
  });

  it.each(SAFE_URIS)("takes %s on every path that takes a uri", async (uri) => {
    const eventId = await registeredEvent();
    const [streamed, perAction] = [uid("ticket"), uid("ticket")];
    await stream(chainApp.api, [
      { action: "soldTicket", data: { eventId, ticketId: streamed, price: "10.00", uri } },
      { action: "updateTicket", data: { ticketId: streamed, uri } },
    ]);
    const sold = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, perAction, { uri })]);
    expect(sold.body[0].status).toBe("success");
    expect((await chainApp.api.get(`/api/v1/tickets/${perAction}`)).body.uri).toBe(uri);
  });

  it("never serves as the token's image a uri stored before the rule: the event's image stands in", async () => {
    const eventId = await registeredEvent({ imageUrl: IMAGE });
    const [withUri, legacy] = [uid("ticket"), uid("ticket")];
    const promises = await stream(chainApp.api, [
      { action: "soldTicket", data: { eventId, ticketId: withUri, price: "10.00", uri: SAFE_URIS[1] } },
      { action: "soldTicket", data: { eventId, ticketId: legacy, price: "10.00", uri: SAFE_URIS[0] } },
    ]);
    expect((await allSettled(chainApp.api, promises)).map((status) => status.status)).toEqual(["confirmed", "confirmed"]);
    const tokens = await tokenIds(chainApp.testApp, [withUri, legacy]);
    expect((await (await fetch(`${chainApp.testApp.baseUrl}/tokens/${tokens.get(withUri)}`)).json()).image).toBe(SAFE_URIS[1]);

    for (const unsafe of ["javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==", "http://img.example.com/a.png"]) {
      await sqlOf(chainApp.testApp)(`UPDATE tickets SET uri = $1 WHERE ticket_id = $2`, [unsafe, legacy]);
      const answer = await fetch(`${chainApp.testApp.baseUrl}/tokens/${tokens.get(legacy)}`);
      expect(answer.status).toBe(200);
      const metadata = await answer.json();
      expect(metadata.image, unsafe).toBe(IMAGE);
      expect(JSON.stringify(metadata)).not.toContain(unsafe);
    }
  });
});

describe("ids", () => {
  it.each(REFUSED_IDS)("refuses a ticketId with %s, on /stream and the per-action endpoints, as invalid_field naming ticketId", async (_case, ticketId) => {
    const eventId = await registeredEvent();
    const answer = await chainApp.api.post("/stream", [
      { action: "soldTicket", data: { eventId, ticketId, price: "10.00" } },
      { action: "scannedTicket", data: { ticketId } },
      { action: "updateTicket", data: { ticketId, uri: SAFE_URIS[0] } },
    ]);
    expect(answer.status).toBe(200);
    for (const entry of answer.body.data) expect(entry.error).toMatchObject({ code: "invalid_field", field: "ticketId" });
    const sold = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, ticketId)]);
    expect(sold.body[0]).toMatchObject({ status: "error", error: { code: "invalid_field", field: "ticketId" } });
    const resold = await chainApp.api.post("/api/v1/resold", [{ ticketId, price: "12.00" }]);
    expect(resold.body[0]).toMatchObject({ status: "error", error: { code: "invalid_field", field: "ticketId" } });
  });

  it.each(REFUSED_IDS)("refuses an eventId with %s, on newEvent, updateEvent, soldTicket and POST /api/v1/events", async (_case, eventId) => {
    const answer = await chainApp.api.post("/stream", [
      { action: "newEvent", data: newEventData(eventId) },
      { action: "updateEvent", data: { eventId, eventName: "Renamed" } },
      { action: "soldTicket", data: { eventId, ticketId: uid("ticket"), price: "10.00" } },
    ]);
    for (const entry of answer.body.data) expect(entry.error).toMatchObject({ code: "invalid_field", field: "eventId" });
    const created = await chainApp.api.post("/api/v1/events", eventBody(eventId, chainApp.ticketeerId));
    expect(created.status).toBe(400);
    expect(created.body.error).toMatchObject({ code: "invalid_field", field: "eventId" });
  });

  it("says which character it refused, by code point, and why", async () => {
    const eventId = await registeredEvent();
    const answer = await chainApp.api.post("/api/v1/sold", [soldItem(eventId, "paid\u202Efdp.exe"), soldItem(eventId, "..")]);
    expect(answer.body[0].error.message).toBe(
      "ticketId must not contain U+202E (character 5), a bidirectional control, which reorders the text around it: ids refuse control, " +
        "bidirectional and zero-width characters",
    );
    expect(answer.body[1].error.message).toBe('ticketId must not be only dots: ".", ".." and the like are path steps, so no URL could name its page');
  });
});

describe("without PUBLIC_BASE_URL, the tokens' answers never follow the Host header", () => {
  it("builds external_url and external_link from the address the request came to, whatever Host says, and keeps them cacheable", async () => {
    const eventId = await registeredEvent({ imageUrl: IMAGE });
    const ticketId = uid("ticket");
    const promises = await stream(chainApp.api, [{ action: "soldTicket", data: { eventId, ticketId, price: "10.00" } }]);
    await allSettled(chainApp.api, promises);
    const tokenId = (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!;
    expect(chainApp.testApp.config.app.publicBaseUrl).toBeNull();

    for (const host of ["evil.example", "evil.example:443", `127.0.0.1:${new URL(chainApp.testApp.baseUrl).port}`]) {
      const token = await getWithHost(`/tokens/${tokenId}`, host);
      expect(token.status).toBe(200);
      expect(token.cacheControl).toMatch(/^public/);
      expect(token.body.external_url, host).toBe(`${chainApp.testApp.baseUrl}/verify/tokens/${tokenId}`);
      const collection = await getWithHost("/tokens/collection", host);
      expect(collection.status).toBe(200);
      expect(collection.body.external_link, host).toBe(chainApp.testApp.baseUrl);
      expect(JSON.stringify([token.body, collection.body])).not.toContain("evil.example");
    }
  });
});

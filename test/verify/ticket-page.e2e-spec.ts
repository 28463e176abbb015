import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import Redis from "ioredis";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { actionPromises, allSettled, CALLBACK_URL, eventIndexOf, sqlOf, ticketView, tokenIds, txPromises, uid, WALLET } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";

/**
 * The public ticket page, GET /verify/{ticketId}: the app on a real chain sells a ticket, resells it
 * and checks it in; once confirmed, Debian's Chromium (driven by playwright-core, no downloaded
 * browser) opens the page without an API key and finds the chain's facts in the DOM.
 */

const CHROMIUM = "/usr/bin/chromium";
/** Pages per client IP per window in this file: the rate-limit test counts from a cleared bucket. */
const PAGE_LIMIT = 12;

let browser: Browser;
const screenshotDir = mkdtempSync(join(tmpdir(), "verify-page-"));

const eventId = uid("event");
const ticketId = uid("ticket");
/** Chain strings are escaped like ids: this name must show as text, never as an element. */
const EVENT_NAME = `Concert <img src=x onerror="document.title='pwned'"> & "Friends"`;
const facts: { saleTx?: string; resaleTx?: string; checkInTx?: string; eventTx?: string } = {};

const chainApp = useChainApp({ env: { VERIFY_RATE_LIMIT_REQUESTS: String(PAGE_LIMIT), VERIFY_RATE_LIMIT_WINDOW_SECONDS: "600" } });

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu"] });
});

afterAll(async () => {
  await browser?.close();
});

const pageUrl = (id: string, query = "") => `${chainApp.testApp.baseUrl}/verify/${encodeURIComponent(id)}${query}`;

async function clearPageRateLimit(): Promise<void> {
  const redis = new Redis(chainApp.testApp.config.redis.url);
  try {
    const keys = await redis.keys(`${chainApp.testApp.config.redis.keyPrefix}:verify-rate*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

describe("GET /verify/{ticketId}", () => {
  beforeAll(async () => {
    const created = await chainApp.api.post("/api/v1/events", {
      eventId,
      ticketeerId: chainApp.ticketeerId,
      eventName: EVENT_NAME,
      currency: "EUR",
      callbackUrl: CALLBACK_URL,
      latitude: 52.3731,
      longitude: 4.8922,
      startTime: 1_900_000_000,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const [sold] = txPromises(await chainApp.api.post("/api/v1/sold", [{ eventId, ticketId, price: "12.50", orderTime: 1_750_000_001 }]));
    const [resold] = txPromises(await chainApp.api.post("/api/v1/resold", [{ ticketId, price: "15.00", orderTime: 1_750_000_100 }]));
    const [checkedIn] = txPromises(await chainApp.api.post("/api/v1/checkedin", [{ ticketId, orderTime: 1_750_000_400 }]));
    const statuses = await allSettled(chainApp.api, [created.body.txPromise as string, sold, resold, checkedIn]);
    expect(statuses.map((status) => status.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
    [facts.eventTx, facts.saleTx, facts.resaleTx, facts.checkInTx] = statuses.map((status) => status.txHash as string);
    await clearPageRateLimit();
  });

  it("shows the ticket's event, sale, holder, flags and transaction hashes read from the chain, in a real browser, and screenshots it", async () => {
    const tokenId = (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!;
    const view = await ticketView(chainApp.chain, tokenId);
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    const cspViolations: string[] = [];
    page.on("console", (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));

    const response = await page.goto(pageUrl(ticketId));
    expect(response?.status()).toBe(200);
    const headers = response!.headers();
    expect(headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(headers["content-security-policy"]).toMatch(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src https:; script-src 'none'/);
    expect(headers["x-content-type-options"]).toBe("nosniff");

    const fact = (name: string) => page.locator(`[data-fact="${name}"]`).first().textContent();
    const factValue = (name: string) => page.locator(`[data-fact="${name}"]`).first().getAttribute("data-value");
    expect(await fact("ticket-id")).toBe(ticketId);
    expect(await fact("token-id")).toBe(tokenId.toString());
    expect(await fact("verdict")).toBe("Valid ticket, already checked in.");
    expect(await fact("price")).toBe("12.50 EUR");
    expect(await fact("order-time")).toBe("2025-06-15 15:06:41 UTC");
    expect(await factValue("checked-in")).toBe("yes");
    expect(await factValue("invalidated")).toBe("no");
    expect(await factValue("claimed")).toBe("no");
    expect(await fact("resales")).toBe("Resales: 1");
    expect(await fact("holder")).toBe(view.holder);
    expect(view.checkedIn).toBe(true);
    expect(await fact("sale-tx")).toBe(facts.saleTx);
    expect(await fact("resale-tx")).toBe(facts.resaleTx);
    expect(await fact("check-in-tx")).toBe(facts.checkInTx);
    expect(await fact("event-tx")).toBe(facts.eventTx);
    expect(await fact("event-name")).toBe(EVENT_NAME);
    expect(await fact("event-currency")).toBe("EUR");
    expect(await fact("event-details-check")).toBe("match the hash the registry stores");
    expect(await fact("event-key")).toBe(view.eventKey);
    expect(await fact("registry")).toBe(chainApp.chain.registryAddress);
    expect(await fact("chain-id")).toBe(String(chainApp.chain.chainId));
    expect(await page.locator('tr[data-transfer="sale"]').count()).toBe(1);
    expect(await page.locator('tr[data-transfer="resale"]').count()).toBe(1);
    // The event name's markup stayed text: no element came of it, and nothing ran.
    expect(await page.locator("img, script, iframe, object").count()).toBe(0);
    expect(await page.title()).toBe(`Ticket ${ticketId} on chain`);
    // The inline style ran under the CSP (allowed by its hash), and nothing else was loaded or refused.
    expect(cspViolations).toEqual([]);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(246, 248, 250)");
    expect(requests.filter((url) => !url.startsWith(chainApp.testApp.baseUrl + "/verify/"))).toEqual([]);

    const screenshotPath = join(screenshotDir, "ticket-page.png");
    await page.screenshot({ path: screenshotPath, fullPage: true });
    await page.close();
    await expectRealScreenshot(screenshotPath);
  });

  it("answers 404 with a 'not found on chain' page for an id never sold, escaping the id", async () => {
    const unknown = `<script>document.title="pwned"</script>&"' ${uid("nobody")}`;
    const page = await browser.newPage();
    const response = await page.goto(pageUrl(unknown));
    expect(response?.status()).toBe(404);
    expect(response!.headers()["content-type"]).toBe("text/html; charset=utf-8");
    expect(response!.headers()["content-security-policy"]).toMatch(/^default-src 'none'/);
    expect(await page.locator("h1").textContent()).toBe("Not found on chain");
    expect(await page.locator('[data-fact="ticket-id"]').textContent()).toBe(unknown);
    expect(await page.locator("script").count()).toBe(0);
    expect(await page.title()).toBe(`Ticket ${unknown} not found on chain`);
    await page.screenshot({ path: join(screenshotDir, "not-found-page.png") });
    await page.close();

    const raw = await (await fetch(pageUrl(unknown))).text();
    expect(raw).not.toContain("<script>");
    expect(raw).toContain("&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;&amp;&quot;&#39;");
  });

  it("picks the sale of a named event (eventId and ticketeerId), and is not found for another event", async () => {
    const named = await fetch(pageUrl(ticketId, `?eventId=${encodeURIComponent(eventId)}&ticketeerId=${encodeURIComponent(chainApp.ticketeerId)}`));
    expect(named.status).toBe(200);
    expect(await named.text()).toContain("Sold for the event you named");
    const other = await fetch(pageUrl(ticketId, `?eventId=another-event&ticketeerId=${encodeURIComponent(chainApp.ticketeerId)}`));
    expect(other.status).toBe(404);
    expect(await other.text()).toContain("for event <code>another-event</code>");
    const half = await fetch(pageUrl(ticketId, `?eventId=${encodeURIComponent(eventId)}`));
    expect(half.status).toBe(400);
  });

  it("reads the chain, not the database: the page is the same after the ledger forgets the ticket's id", async () => {
    await sqlOf(chainApp.testApp)(`UPDATE tickets SET ticket_id = ticket_id || '-renamed' WHERE ticket_id = $1`, [ticketId]);
    const answer = await fetch(pageUrl(ticketId));
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain(facts.checkInTx);
    await sqlOf(chainApp.testApp)(`UPDATE tickets SET ticket_id = $1 WHERE ticket_id = $2`, [ticketId, `${ticketId}-renamed`]);
  });

  it("needs no API key and limits pages per client IP: 429 with Retry-After past the limit", async () => {
    await clearPageRateLimit();
    for (let i = 0; i < PAGE_LIMIT; i++) {
      const answer = await fetch(pageUrl(i % 2 === 0 ? ticketId : uid("nobody")));
      expect(answer.status).not.toBe(429);
      expect(Number(answer.headers.get("ratelimit-remaining"))).toBe(PAGE_LIMIT - i - 1);
    }
    const refused = await fetch(pageUrl(ticketId));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(refused.headers.get("content-security-policy")).toMatch(/^default-src 'none'/);
    expect(await refused.text()).toContain("Too many requests");
    // The API's own limit is per key and untouched: an authenticated read still answers.
    expect((await chainApp.api.get(`/api/v1/tickets/${encodeURIComponent(ticketId)}`)).status).toBe(200);
  });
});

describe("GET /verify/events/{eventIndex}", () => {
  const pageEventId = uid("event-page");
  const [claimedId, invalidatedId, plainId] = [uid("claimed"), uid("invalidated"), uid("plain")];
  const IMAGE_URL = "https://images.invalid/poster.png?size=large&v=1";
  let eventIndex: bigint;

  beforeAll(async () => {
    const created = await chainApp.api.post("/api/v1/events", {
      eventId: pageEventId,
      ticketeerId: chainApp.ticketeerId,
      eventName: "Open air <b>night</b>",
      currency: "EUR",
      callbackUrl: CALLBACK_URL,
      imageUrl: IMAGE_URL,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const sales = txPromises(
      await chainApp.api.post("/api/v1/sold", [
        { eventId: pageEventId, ticketId: claimedId, price: "20.00", orderTime: 1_750_000_001 },
        { eventId: pageEventId, ticketId: invalidatedId, price: "20.00", orderTime: 1_750_000_002 },
        { eventId: pageEventId, ticketId: plainId, price: "20.00", orderTime: 1_750_000_003 },
      ]),
    );
    const [resold] = txPromises(await chainApp.api.post("/api/v1/resold", [{ ticketId: claimedId, price: "25.00", orderTime: 1_750_000_100 }]));
    const [checkedIn] = txPromises(await chainApp.api.post("/api/v1/checkedin", [{ ticketId: claimedId, orderTime: 1_750_000_400 }]));
    const [invalidated] = txPromises(await chainApp.api.post("/api/v1/invalidated", [{ ticketId: invalidatedId, orderTime: 1_750_000_500 }]));
    const settledTxs = await allSettled(chainApp.api, [created.body.txPromise as string, ...sales, resold, checkedIn, invalidated]);
    expect(settledTxs.every((status) => status.status === "confirmed")).toBe(true);
    const [claimed] = actionPromises(await chainApp.api.post("/stream", [{ action: "claimedTicket", data: { ticketId: claimedId, to: WALLET } }]));
    expect((await allSettled(chainApp.api, [claimed]))[0].status).toBe("confirmed");
    eventIndex = await eventIndexOf(chainApp.testApp, pageEventId);
    await clearPageRateLimit();
  });

  it("shows the event's counts after a sale, check-in, invalidation, claim and resale, its image, and reads at 390 px", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    const response = await page.goto(`${chainApp.testApp.baseUrl}/verify/events/${eventIndex}`);
    expect(response?.status()).toBe(200);
    expect(response!.headers()["content-security-policy"]).toMatch(/img-src https:; script-src 'none'/);
    const count = (name: string) => page.locator(`[data-fact="count-${name}"]`).getAttribute("data-value");
    expect(await count("sold")).toBe("3");
    expect(await count("checked-in")).toBe("1");
    expect(await count("invalidated")).toBe("1");
    expect(await count("claimed")).toBe("1");
    expect(await count("resales")).toBe("1");
    expect(await page.locator('[data-fact="event-name"]').first().textContent()).toBe("Open air <b>night</b>");
    expect((await page.locator('[data-fact="event-details-check"]').textContent())?.trim()).toBe("match the hash the registry stores");
    expect(await page.locator('img[data-fact="event-image"]').getAttribute("src")).toBe(IMAGE_URL);
    expect(requests).toContain(IMAGE_URL);
    expect(await page.locator("b, script").count()).toBe(0);
    const kinds = await page.locator("tr[data-activity]").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-activity")));
    expect([...new Set(kinds)].sort()).toEqual(["check-in", "claim", "invalidation", "resale", "sale"]);
    expect(await page.locator('a[data-link="token-page"]').count()).toBe(3);
    expect(await page.locator('[data-fact="token-total"]').textContent()).toBe("All 3 tokens, newest first:");

    const screenshotPath = join(screenshotDir, "event-page-390.png");
    await page.screenshot({ path: screenshotPath, fullPage: true });
    expect(statSync(screenshotPath).size).toBeGreaterThan(10_000);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    console.log(`event page screenshot: ${screenshotPath}`);
    await page.close();
  });

  it("links ticket, token and event pages to one another (click through), each readable at 390 px", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(pageUrl(claimedId));
    expect(await page.locator('img[data-fact="event-image"]').getAttribute("src")).toBe(IMAGE_URL);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    await page.locator('a[data-link="event-page"]').click();
    expect(new URL(page.url()).pathname).toBe(`/verify/events/${eventIndex}`);
    const claimedToken = (await tokenIds(chainApp.testApp, [claimedId])).get(claimedId)!;
    await page.locator(`a[data-link="token-page"][href$="/${claimedToken}"]`).click();
    expect(new URL(page.url()).pathname).toBe(`/verify/tokens/${claimedToken}`);
    expect(await page.locator('[data-fact="page-token-id"]').textContent()).toBe(claimedToken.toString());
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(390);
    await page.locator('a[data-link="event-page"]').click();
    expect(new URL(page.url()).pathname).toBe(`/verify/events/${eventIndex}`);
    await page.close();
  });

  it("answers 400 for a malformed index and 404 for an unregistered event, without an API key", async () => {
    for (const bad of ["abc", "01", "-1", "18446744073709551616"]) {
      expect((await fetch(`${chainApp.testApp.baseUrl}/verify/events/${bad}`)).status, bad).toBe(400);
    }
    const missing = await fetch(`${chainApp.testApp.baseUrl}/verify/events/999999`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("is registered on chain");
  });
});

/**
 * The screenshot is a real PNG of a reasonable size and not blank: its signature and header, then the
 * browser itself decodes it on a canvas and counts its colours and the pixels that are not background.
 */
async function expectRealScreenshot(path: string): Promise<void> {
  const bytes = readFileSync(path);
  expect(bytes.subarray(0, 8).toString("hex")).toBe("89504e470d0a1a0a");
  expect(bytes.subarray(12, 16).toString("ascii")).toBe("IHDR");
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  expect(width).toBe(1000);
  expect(height).toBeGreaterThanOrEqual(900);
  expect(height).toBeLessThan(10_000);
  const size = statSync(path).size;
  expect(size).toBeGreaterThan(20_000);
  expect(size).toBeLessThan(5_000_000);

  const page = await browser.newPage();
  try {
    const stats = await page.evaluate(
      async (dataUrl) => {
        const image = new Image();
        image.src = dataUrl;
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = image.naturalWidth;
        canvas.height = image.naturalHeight;
        const context = canvas.getContext("2d")!;
        context.drawImage(image, 0, 0);
        const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
        const colours = new Map<number, number>();
        for (let i = 0; i < data.length; i += 4) {
          const colour = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
          colours.set(colour, (colours.get(colour) ?? 0) + 1);
        }
        const pixels = data.length / 4;
        const background = Math.max(...colours.values());
        return { width: canvas.width, colours: colours.size, notBackground: (pixels - background) / pixels };
      },
      `data:image/png;base64,${bytes.toString("base64")}`,
    );
    expect(stats.width).toBe(width);
    expect(stats.colours).toBeGreaterThan(50);
    expect(stats.notBackground).toBeGreaterThan(0.1);
  } finally {
    await page.close();
  }
  console.log(`ticket page screenshot: ${path} (${width}x${height}, ${size} bytes)`);
}

import { describe, expect, it } from "vitest";

import { escapeHtml } from "../../src/verify/html";
import { stream } from "../support/callbacks-e2e";
import { allSettled, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";
import { newEventData } from "../support/fixtures";

/**
 * Every id the API accepts has a page: ids made of what URLs and HTML find awkward (spaces, slashes,
 * `%`, `?`, `#`, quotes, emoji, astral characters, right-to-left letters, combining marks), up to 255
 * code points, are sold through the real app on a chain, and each one's public page
 * (`GET /verify/{ticketId}`, URL-encoded) and ticket view answer 200 and name it. Property-style: a
 * seeded generator makes the same ids on every run, beside the edge cases named below.
 */

const chainApp = useChainApp({ env: { VERIFY_RATE_LIMIT_REQUESTS: "10000", VERIFY_RATE_LIMIT_WINDOW_SECONDS: "600" } });

/** Pieces an id is made of: each taken by the API, each awkward in a URL, in HTML or in UTF-16. */
const PIECES = [" ", "/", "%", "%2F", "%2E%2E", "?", "#", "&", "+", "=", ";", ":", "@", "\\", "..", ".", "~", "'", '"', "<", ">", "`"];
const WIDE = ["🎫", "𝄞", "中文", "שלום", "مرحبا", "e\u0301", "🇳🇱", "👍🏽", "Ω", "\u{10FFFD}", "ﬁ"];
const PLAIN = ["a", "ticket", "0", "Z", "-", "_"];

/** The edge cases: each alone is an id the API takes. */
const EDGE_IDS = [
  "𝄞".repeat(255),
  "🎫".repeat(255),
  "x".repeat(255),
  " ",
  "   ",
  "a b",
  "/",
  "a/b",
  "/a/",
  "a/../b",
  "%",
  "%2F",
  "%2E%2E",
  "%00",
  "?",
  "a?b=c",
  "#",
  "a#b",
  ".a",
  "a.",
  "..a",
  "a..",
  ". .",
  "\\",
  "<b>&amp;</b>",
  "e\u0301",
  "שלום",
];

/** A small deterministic generator: the same ids on every run. */
function seeded(seed: number): () => number {
  return () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

function generatedIds(count: number): string[] {
  const random = seeded(29);
  const pick = (pieces: string[]) => pieces[Math.floor(random() * pieces.length)];
  const ids = new Set<string>();
  while (ids.size < count) {
    const pieces: string[] = [];
    const length = 1 + Math.floor(random() * 12);
    for (let i = 0; i < length; i++) pieces.push(pick(random() < 0.45 ? PIECES : random() < 0.5 ? WIDE : PLAIN));
    // Some run up to the limit: padded with astral characters to exactly 255 code points.
    const id = pieces.join("");
    const points = [...id].length;
    ids.add(random() < 0.25 && points < 255 ? id + "𝄞".repeat(255 - points) : id);
  }
  return [...ids].filter((id) => !/^\.+$/.test(id));
}

const pageUrl = (ticketId: string, query = "") => `${chainApp.testApp.baseUrl}/verify/${encodeURIComponent(ticketId)}${query}`;

describe("every id the API accepts has a page", () => {
  it("sells tickets under awkward ids, each up to 255 code points, and answers each one's page and view", async () => {
    const eventId = `event ${uid("e")} /?#%𝄞`;
    const ticketIds = [...new Set([...EDGE_IDS, ...generatedIds(40)])];
    for (const ticketId of ticketIds) expect([...ticketId].length, ticketId).toBeLessThanOrEqual(255);
    const promises = await stream(chainApp.api, [
      { action: "newEvent", data: newEventData(eventId) },
      ...ticketIds.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10.00" } })),
    ]);
    const statuses = await allSettled(chainApp.api, promises, 120_000);
    expect(statuses.filter((status) => status.status !== "confirmed")).toEqual([]);

    for (const ticketId of ticketIds) {
      const page = await fetch(pageUrl(ticketId));
      expect(page.status, JSON.stringify(ticketId)).toBe(200);
      expect(await page.text(), JSON.stringify(ticketId)).toContain(`<code data-fact="ticket-id">${escapeHtml(ticketId)}</code>`);
      const view = await chainApp.api.get(`/api/v1/tickets/${encodeURIComponent(ticketId)}`);
      expect(view.status, JSON.stringify(ticketId)).toBe(200);
      expect(view.body.ticketId).toBe(ticketId);
    }
  });

  it("finds the sale of an event named with an id at the limit, eventId and ticketeerId counted in code points", async () => {
    const eventId = "𝄞".repeat(255);
    const ticketId = "🎫".repeat(200);
    const promises = await stream(chainApp.api, [
      { action: "newEvent", data: newEventData(eventId) },
      { action: "soldTicket", data: { eventId, ticketId, price: "10.00" } },
    ]);
    expect((await allSettled(chainApp.api, promises)).map((status) => status.status)).toEqual(["confirmed", "confirmed"]);
    const query = `?eventId=${encodeURIComponent(eventId)}&ticketeerId=${encodeURIComponent(chainApp.ticketeerId)}`;
    const named = await fetch(pageUrl(ticketId, query));
    expect(named.status).toBe(200);
    expect(await named.text()).toContain("Sold for the event you named");
  });

  it("answers 400 for an id over 255 code points, however few UTF-16 units it has", async () => {
    expect((await fetch(pageUrl("x".repeat(256)))).status).toBe(400);
    expect((await fetch(pageUrl("𝄞".repeat(256)))).status).toBe(400);
    expect((await fetch(pageUrl("𝄠".repeat(255)))).status).toBe(404);
  });

  it("still looks up an id holding a character acceptance refuses (one accepted before the rule), and shows that character as its code point", async () => {
    const page = await fetch(
      pageUrl("paid\u202Efdp.exe", `?eventId=${encodeURIComponent("e\u200Bv")}&ticketeerId=${encodeURIComponent(chainApp.ticketeerId)}`),
    );
    expect(page.status).toBe(404);
    const text = await page.text();
    expect(text).toContain(`<code data-fact="ticket-id">paid⟨U+202E⟩fdp.exe</code> for event <code>e⟨U+200B⟩v</code>`);
    expect(text).toContain("<title>Ticket paid⟨U+202E⟩fdp.exe not found on chain</title>");
    expect(text).not.toMatch(/[\u202E\u200B]/);
  });
});

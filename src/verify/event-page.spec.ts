import { ZeroHash } from "ethers";
import { describe, expect, it } from "vitest";

import { emptyActivity } from "./event-activity";
import { eventNotFoundPage, eventPage } from "./event-page";
import { imagePart, PAGE_CSP } from "./ticket-page";
import type { VerifiedEvent } from "./ticket-verification.service";

const where = { chainId: 31337n, registryAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3", latestBlock: 50, confirmations: 2 as const };
const details = {
  name: `<script>x</script> & "Friends"`,
  currency: "EUR",
  shopUrl: "",
  imageUrl: 'https://img.example/a.png?x=1&y="2"',
  latitude: 0n,
  longitude: 0n,
  startTime: 0n,
  endTime: 0n,
  organizer: "",
  metadataHash: ZeroHash,
};
const event: VerifiedEvent = {
  eventIndex: 3n,
  eventKey: "0x" + "ab".repeat(32),
  ticketeer: "0x" + "cd".repeat(32),
  custody: "0x00000000000000000000000000000000000c0575",
  ticketsSold: 60n,
  ticketsInCustody: 59n,
  details,
  detailsMatchStorage: true,
  registered: { txHash: "0x" + "01".repeat(32), blockNumber: 10, depth: 41 },
  updates: [],
  cancelled: false,
  cancellation: null,
};

describe("eventPage", () => {
  it("shows the counts, the latest transactions newest first and links to the tokens' pages, with every chain string escaped", () => {
    const activity = { ...emptyActivity(49), checkedIn: 4, invalidated: 1, claimed: 2, resales: 3, tokens: [(3n << 64n) | 2n, (3n << 64n) | 1n] };
    activity.recent = [{ txHash: "0x" + "02".repeat(32), blockNumber: 49, kind: "claim" }];
    const page = eventPage(where, event, activity);
    expect(page).toContain('data-fact="count-sold" data-value="60"');
    expect(page).toContain('data-fact="count-checked-in" data-value="4"');
    expect(page).toContain('data-fact="count-claimed" data-value="2"');
    expect(page).toContain('<tr data-activity="claim">');
    expect(page).toContain("block 49, 2 deep, confirmed");
    expect(page).toContain(`href="../tokens/${(3n << 64n) | 2n}"`);
    expect(page).toContain("The latest 2 of 60 tokens, newest first:");
    expect(page).not.toContain("<script>");
    expect(page).toContain("&lt;script&gt;x&lt;/script&gt; &amp; &quot;Friends&quot;");
    expect(page).toContain('<meta name="viewport" content="width=device-width, initial-scale=1" />');
  });

  it("answers an unregistered index with a not-found page", () => {
    expect(eventNotFoundPage(where, 9n)).toContain('No event <code data-fact="event-index">9</code> is registered on chain.');
  });
});

describe("imagePart", () => {
  it("shows an https image with its URL escaped, and any other scheme as text with a note", () => {
    expect(imagePart('https://img.example/a.png?x=1&y="2"').value).toContain('src="https://img.example/a.png?x=1&amp;y=&quot;2&quot;"');
    for (const url of ["ipfs://bafy/a.png", "ar://abc", "http://img.example/a.png", "javascript:alert(1)", "not a url"]) {
      const part = imagePart(url).value;
      expect(part).not.toContain("<img");
      expect(part).toContain("only https images are loaded");
    }
  });

  it("lets the CSP load https images only, and nothing else", () => {
    expect(PAGE_CSP).toContain("img-src https:;");
    expect(PAGE_CSP).toMatch(
      /^default-src 'none'; style-src 'sha256-[^']+'; img-src https:; script-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
  });
});

import { registryPriceText } from "../registry";
import { html, SafeHtml, styleHashSource, visibleId } from "./html";
import type { MetadataCheck } from "./metadata-check.service";
import type { ChainTx, EventDetailsOnChain, TicketVerification, VerifiedEvent, VerifiedSale } from "./ticket-verification.service";

const STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #59636e; --line: #d1d9e0; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f6f8fa; }
main { max-width: 920px; margin: 0 auto; padding: 24px 16px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 12px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
.sub { color: var(--muted); margin: 0 0 20px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin: 0 0 16px; }
dl { display: grid; grid-template-columns: minmax(140px, 220px) 1fr; gap: 6px 16px; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
code { font: 13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
table { width: 100%; border-collapse: collapse; font-size: 14px; }
th, td { text-align: left; padding: 6px 8px; border-top: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; border-top: 0; }
.flags { display: flex; flex-wrap: wrap; gap: 8px; margin: 0 0 16px; padding: 0; list-style: none; }
.flag { border-radius: 999px; padding: 2px 12px; font-weight: 600; border: 1px solid var(--line); background: #f6f8fa; }
.flag.on { background: #dafbe1; border-color: #aceebb; color: var(--ok); }
.flag.bad { background: #ffebe9; border-color: #ffcecb; color: var(--bad); }
.verdict { font-size: 17px; font-weight: 600; }
.verdict.ok { color: var(--ok); }
.verdict.bad { color: var(--bad); }
.verdict.warn { color: var(--warn); }
.none { color: var(--muted); }
footer { color: var(--muted); font-size: 13px; }
table { table-layout: fixed; }
th, td { overflow-wrap: anywhere; }
img.event-image { display: block; max-width: 100%; height: auto; max-height: 360px; border-radius: 6px; margin: 4px 0; }
@media (max-width: 600px) {
  main { padding: 16px 10px 32px; }
  section { padding: 12px; }
  dl { grid-template-columns: 1fr; gap: 2px; }
  dd { margin: 0 0 8px; }
  th, td { padding: 4px; font-size: 13px; }
}
`;

/**
 * The style element, built outside any `html` template (Prettier reformats those): its content must be
 * byte for byte STYLE, whose hash the CSP allows. A constant, no input in it.
 */
const STYLE_ELEMENT = new SafeHtml("<style>" + STYLE + "</style>");

/**
 * Content-Security-Policy of every page this module answers: nothing may load (no scripts, images,
 * fonts, frames, connections), except the page's own inline style, allowed by its hash, and an
 * event's image over https.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src ${styleHashSource(STYLE)}`,
  // An event's image is shown from its https URL only; nothing else may load.
  "img-src https:",
  "script-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of every page: the CSP above and the usual hardening of a page that embeds nothing. */
export const PAGE_HEADERS: Record<string, string> = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "no-store",
  "Cross-Origin-Resource-Policy": "same-origin",
};

/** The ticket as the chain records it. */
export function ticketPage(verification: TicketVerification): string {
  const { sales } = verification;
  const ticketId = visibleId(verification.ticketId);
  const title = sales.length > 1 ? `${sales.length} sales of ticket ${ticketId} on chain` : `Ticket ${ticketId} on chain`;
  return document(
    title,
    html`<h1>Ticket <code data-fact="ticket-id">${ticketId}</code></h1>
      <p class="sub">What the registry contract records for this ticket id, read from the chain just now, not from the service's database.</p>
      ${sales.length > 1 ? html`<p class="verdict warn">This id was sold ${sales.length} times, by different organizations or events; each sale is shown below.</p>` : ""}
      ${sales.map((sale) => salePart(sale, verification, "events/"))} ${chainPart(verification)}`,
  );
}

/**
 * The ticket of one token, found by its tokenId (the page a token's metadata links to as external_url):
 * the same facts, and no raw ticket id, which the chain never holds.
 */
export function tokenPage(verification: TicketVerification, tokenId: bigint): string {
  return document(
    `Ticket token ${tokenId} on chain`,
    html`<h1>Ticket token <code data-fact="page-token-id">${tokenId}</code></h1>
      <p class="sub">What the registry contract records for this token, read from the chain just now, not from the service's database.</p>
      ${verification.sales.map((sale) => salePart(sale, verification, "../events/"))} ${chainPart(verification)}`,
  );
}

/** No sale of this token recorded on chain. */
export function tokenNotFoundPage(verification: Pick<TicketVerification, "chainId" | "registryAddress" | "latestBlock">, tokenId: bigint): string {
  return document(
    `Ticket token ${tokenId} not found on chain`,
    html`<h1>Not found on chain</h1>
      <section>
        <p class="verdict bad" data-fact="verdict">No sale of token <code data-fact="page-token-id">${tokenId}</code> is recorded on chain.</p>
        <p>The registry has no <code>TicketSold</code> log of this tokenId: it was never sold through the registry, or its sale is not mined yet.</p>
      </section>
      ${chainPart({ ...verification, ticketHash: null, confirmations: null })}`,
  );
}

/** No sale recorded under the id's hash (or none for the event asked about). */
export function notFoundPage(
  verification: Pick<TicketVerification, "ticketId" | "ticketHash" | "chainId" | "registryAddress" | "latestBlock">,
  namedEventId?: string,
): string {
  const ticketId = visibleId(verification.ticketId);
  const eventId = namedEventId === undefined ? undefined : visibleId(namedEventId);
  return document(
    `Ticket ${ticketId} not found on chain`,
    html`<h1>Not found on chain</h1>
      <section>
        <p class="verdict bad" data-fact="verdict">
          No sale of ticket <code data-fact="ticket-id">${ticketId}</code>${eventId === undefined ? "" : html` for event <code>${eventId}</code>`} is recorded
          on chain.
        </p>
        <p>
          The registry has no <code>TicketSold</code> log whose <code>ticketHash</code> is the SHA-256 of this
          id${eventId === undefined ? "" : " in that event"}. Either the ticket was never sold through the registry, its sale is not mined yet, or the id is
          mistyped.
        </p>
      </section>
      ${chainPart({ ...verification, confirmations: null })}`,
  );
}

/** Any other answer (429, 503, a malformed id): a title and a sentence, same CSP. */
export function messagePage(title: string, message: string): string {
  return document(
    title,
    html`<h1>${title}</h1>
      <section><p data-fact="verdict">${message}</p></section>`,
  );
}

export function document(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        ${STYLE_ELEMENT}
      </head>
      <body>
        <main>
          ${body}
          <footer>
            Ticket registry: every fact above comes from the chain's own records (the registry's views and logs), except the served metadata, which is checked
            against them.
          </footer>
        </main>
      </body>
    </html> `.value;
}

function salePart(sale: VerifiedSale, verification: TicketVerification, eventHref: string): SafeHtml {
  const currency = sale.event.details?.currency ?? "";
  const verdict = sale.eventCancelled
    ? html`<p class="verdict bad" data-fact="verdict">Event cancelled: this ticket is no longer valid.</p>`
    : sale.invalidated
      ? html`<p class="verdict bad" data-fact="verdict">Invalidated: this ticket is no longer valid.</p>`
      : sale.checkedIn
        ? html`<p class="verdict warn" data-fact="verdict">Valid ticket, already checked in.</p>`
        : html`<p class="verdict ok" data-fact="verdict">Valid ticket, not checked in.</p>`;
  return html`<section data-token-id="${sale.tokenId}">
    <h2>Sale recorded on chain</h2>
    ${verdict}
    ${sale.eventMatches === true ? html`<p class="verdict ok">Sold for the event you named (its eventId and ticketeerId hash to this event's key).</p>` : ""}
    <ul class="flags">
      ${flag("event-cancelled", "Event cancelled", sale.eventCancelled, true)} ${flag("checked-in", "Checked in", sale.checkedIn, false)}
      ${flag("invalidated", "Invalidated", sale.invalidated, true)} ${flag("claimed", "Claimed to a wallet", sale.claimed, false)}
      <li class="flag${sale.resaleCount > 0 ? " on" : ""}" data-fact="resales">Resales: ${sale.resaleCount}</li>
    </ul>
    <dl>
      <dt>Token id</dt>
      <dd><code data-fact="token-id">${sale.tokenId}</code> (event ${sale.event.eventIndex}, serial ${sale.serial})</dd>
      <dt>Price</dt>
      <dd data-fact="price">${price(sale.sale.price)} ${currency}</dd>
      <dt>Order time</dt>
      <dd data-fact="order-time">${time(sale.sale.orderTime)}</dd>
      <dt>Sale transaction</dt>
      <dd>${txLine(sale.sale, verification, "sale-tx")}</dd>
      <dt>Holder</dt>
      <dd>
        <code data-fact="holder">${sale.holder}</code> ${sale.claimed ? "(a wallet: the ticket was claimed)" : "(a keyless custodial address of the registry)"}
      </dd>
      <dt>Check-in</dt>
      <dd>
        ${sale.checkIns.length > 0 ? sale.checkIns.map((entry) => html`<div>${time(entry.orderTime)}: ${txLine(entry, verification, "check-in-tx")}</div>`) : html`<span class="none">${sale.checkedIn ? "checked in (record not found in the scanned logs)" : "not checked in"}</span>`}
      </dd>
      <dt>Invalidation</dt>
      <dd>
        ${sale.invalidations.length > 0 ? sale.invalidations.map((entry) => html`<div>${time(entry.orderTime)}: ${txLine(entry, verification, "invalidation-tx")}</div>`) : html`<span class="none">${sale.invalidated ? "invalidated (record not found in the scanned logs)" : "not invalidated"}</span>`}
      </dd>
    </dl>
    ${sale.metadataCheck ? metadataPart(sale.metadataCheck, verification) : ""} ${resalesPart(sale, verification, currency)}
    ${transfersPart(sale, verification)} ${eventPart(sale.event, verification, eventHref)}
  </section>`;
}

const METADATA_VERDICTS = {
  matches: html`<p class="verdict ok" data-fact="metadata-verdict" data-value="matches">The served metadata matches the hash the registry records.</p>`,
  differs: html`<p class="verdict bad" data-fact="metadata-verdict" data-value="differs">The served metadata DIFFERS from the hash the registry records.</p>`,
  none: html`<p class="verdict warn" data-fact="metadata-verdict" data-value="none">No metadata hash of this token is recorded on chain.</p>`,
};

const EVENT_METADATA_VERDICTS = {
  matches: "its description and ticket image as served match the hash in the event's details on chain",
  differs: "its description and ticket image as served DIFFER from the hash in the event's details on chain",
  none: "the event's details were not found on chain",
};

/**
 * The token's served metadata against the chain's record. The served document is the ledger's (what
 * the token's JSON shows); the record is the registry's own log, in the receipt of the transaction named.
 */
function metadataPart(check: MetadataCheck, verification: TicketVerification): SafeHtml {
  const { recorded, served } = check;
  const depth = recorded ? Math.max(0, verification.latestBlock - recorded.blockNumber + 1) : 0;
  return html`<h3>Metadata</h3>
    ${METADATA_VERDICTS[check.verdict]}
    ${check.writeOnItsWay ? html`<p class="none" data-fact="metadata-on-its-way">A change of this token's metadata is on its way to the chain.</p>` : ""}
    <dl>
      <dt>Served hash</dt>
      <dd><code data-fact="served-metadata-hash">${served.metadata_hash}</code> (keccak-256 of the JCS serialization of the token JSON's metadata_document)</dd>
      <dt>Recorded hash</dt>
      <dd>${recorded ? html`<code data-fact="recorded-metadata-hash">${recorded.hash}</code>` : html`<span class="none">none recorded</span>`}</dd>
      ${
        recorded
          ? html`<dt>Recorded in</dt>
              <dd>${txLine({ txHash: recorded.txHash, blockNumber: recorded.blockNumber, depth }, verification, "metadata-tx")}</dd>`
          : ""
      }
      <dt>Event's metadata</dt>
      <dd data-fact="event-metadata-verdict" data-value="${check.event.verdict}">${EVENT_METADATA_VERDICTS[check.event.verdict]}</dd>
    </dl>`;
}

function flag(name: string, label: string, on: boolean, bad: boolean): SafeHtml {
  return html`<li class="flag${on ? (bad ? " bad" : " on") : ""}" data-fact="${name}" data-value="${on ? "yes" : "no"}">${label}: ${on ? "yes" : "no"}</li>`;
}

function resalesPart(sale: VerifiedSale, verification: TicketVerification, currency: string): SafeHtml | string {
  if (sale.resales.length === 0) return "";
  return html`<h3>Resales</h3>
    <table>
      <thead>
        <tr>
          <th>#</th>
          <th>Price</th>
          <th>Order time</th>
          <th>Transaction</th>
        </tr>
      </thead>
      <tbody>
        ${sale.resales.map(
          (entry) =>
            html`<tr>
              <td>${entry.resales}</td>
              <td>${price(entry.price)} ${currency}</td>
              <td>${time(entry.orderTime)}</td>
              <td>${txLine(entry, verification, "resale-tx")}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

const TRANSFER_LABELS = {
  sale: "minted to the event's custody",
  resale: "resale: to a fresh holder address",
  claim: "claim: to the claimant's wallet",
  transfer: "transfer between wallets",
};

function transfersPart(sale: VerifiedSale, verification: TicketVerification): SafeHtml {
  return html`<h3>Ownership (ERC-721 Transfer logs)</h3>
    <table>
      <thead>
        <tr>
          <th>What</th>
          <th>From</th>
          <th>To</th>
          <th>Transaction</th>
        </tr>
      </thead>
      <tbody>
        ${sale.transfers.map(
          (entry) =>
            html`<tr data-transfer="${entry.kind}">
              <td>${TRANSFER_LABELS[entry.kind]}</td>
              <td><code>${entry.from}</code></td>
              <td><code>${entry.to}</code></td>
              <td>${txLine(entry, verification, `${entry.kind}-transfer-tx`)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function eventPart(event: VerifiedEvent, verification: TicketVerification, eventHref: string): SafeHtml {
  const details = event.details;
  return html`<h3>Event</h3>
    <p><a data-link="event-page" href="${eventHref}${event.eventIndex}">The event's page: its counts, transactions and tokens</a></p>
    <dl>
      <dt>Name</dt>
      <dd data-fact="event-name">${details ? details.name || "(no name)" : "(details not found in the logs)"}</dd>
      ${details ? detailRows(details) : ""}
      <dt>Details</dt>
      <dd data-fact="event-details-check">${event.detailsMatchStorage ? "match the hash the registry stores" : "DO NOT match the hash the registry stores"}</dd>
      <dt>Event index</dt>
      <dd><code>${event.eventIndex}</code></dd>
      <dt>Event key</dt>
      <dd><code data-fact="event-key">${event.eventKey}</code> (SHA-256 of the ticketeerId and eventId)</dd>
      <dt>Organization</dt>
      <dd><code>${event.ticketeer}</code> (SHA-256 of the ticketeerId)</dd>
      <dt>Custody address</dt>
      <dd><code>${event.custody}</code></dd>
      <dt>Tickets</dt>
      <dd>${event.ticketsSold} sold, ${event.ticketsInCustody} in custody</dd>
      <dt>Registered</dt>
      <dd>${event.registered ? txLine(event.registered, verification, "event-tx") : html`<span class="none">log not found</span>`}</dd>
      ${
        event.updates.length > 0
          ? html`<dt>Updated</dt>
              <dd>${event.updates.map((entry) => html`<div>${txLine(entry, verification, "event-update-tx")}</div>`)}</dd>`
          : ""
      }
      <dt>Cancelled</dt>
      <dd data-fact="event-cancelled-at">
        ${event.cancellation ? txLine(event.cancellation, verification, "event-cancel-tx") : html`<span class="none">${event.cancelled ? "cancelled (log not found)" : "no"}</span>`}
      </dd>
    </dl>`;
}

export function detailRows(details: EventDetailsOnChain): SafeHtml {
  return html`${
      details.organizer
        ? html`<dt>Organizer</dt>
            <dd data-fact="event-organizer">${details.organizer}</dd>`
        : ""
    }
    <dt>Currency</dt>
    <dd data-fact="event-currency">${details.currency}</dd>
    <dt>Starts</dt>
    <dd>${details.startTime === 0n ? html`<span class="none">not set</span>` : time(details.startTime)}</dd>
    <dt>Ends</dt>
    <dd>${details.endTime === 0n ? html`<span class="none">not set</span>` : time(details.endTime)}</dd>
    ${
      details.latitude !== 0n || details.longitude !== 0n
        ? html`<dt>Location</dt>
            <dd>${coordinate(details.latitude)}, ${coordinate(details.longitude)}</dd>`
        : ""
    }
    ${
      details.shopUrl
        ? html`<dt>Shop</dt>
            <dd><code>${details.shopUrl}</code></dd>`
        : ""
    }
    ${
      details.imageUrl
        ? html`<dt>Image</dt>
            <dd>${imagePart(details.imageUrl)}</dd>`
        : ""
    }`;
}

/** An https image is shown (the CSP allows https images only); any other URL (ipfs:, ar:, http:) stays text. */
export function imagePart(imageUrl: string): SafeHtml {
  if (isHttpsUrl(imageUrl)) {
    return html`<img class="event-image" data-fact="event-image" src="${imageUrl}" alt="Event image" referrerpolicy="no-referrer" loading="lazy" />
      <code>${imageUrl}</code>`;
  }
  return html`<code data-fact="event-image-url">${imageUrl}</code> <span class="none">(not shown: only https images are loaded by this page)</span>`;
}

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === "https:";
  } catch {
    return false;
  }
}

export function chainPart(
  verification: Pick<TicketVerification, "ticketHash" | "chainId" | "registryAddress" | "latestBlock"> & {
    confirmations: TicketVerification["confirmations"] | null;
  },
): SafeHtml {
  return html`<section>
    <h2>Where this was read</h2>
    <dl>
      <dt>Chain id</dt>
      <dd data-fact="chain-id">${verification.chainId}</dd>
      <dt>Registry contract</dt>
      <dd><code data-fact="registry">${verification.registryAddress}</code></dd>
      <dt>Latest block</dt>
      <dd data-fact="latest-block">${verification.latestBlock}</dd>
      ${
        verification.ticketHash === null
          ? ""
          : html`<dt>Ticket hash</dt>
              <dd><code data-fact="ticket-hash">${verification.ticketHash}</code> (SHA-256 of the ticket id, the indexed topic of <code>TicketSold</code>)</dd>`
      }
      ${
        verification.confirmations === null
          ? ""
          : html`<dt>Confirmed at</dt>
              <dd>${verification.confirmations === "finalized" ? "the finalized block" : `${verification.confirmations} block(s) deep`}</dd>`
      }
    </dl>
  </section>`;
}

export function txLine(tx: ChainTx, verification: Pick<TicketVerification, "confirmations">, fact: string): SafeHtml {
  const confirmed = typeof verification.confirmations === "number" ? tx.depth >= verification.confirmations : null;
  const state = confirmed === null ? "" : confirmed ? "confirmed" : "not yet confirmed";
  return html`<code data-fact="${fact}">${tx.txHash}</code> <span class="none">block ${tx.blockNumber}, ${tx.depth} deep${state ? `, ${state}` : ""}</span>`;
}

function price(value: bigint): string {
  return registryPriceText(value);
}

export function time(seconds: bigint): string {
  // Date's range is ±8.64e15 ms; anything beyond (uint64 allows it) is shown as the number it is.
  if (seconds > 8_640_000_000_000n) return `${seconds} (seconds since 1970)`;
  return new Date(Number(seconds) * 1000).toISOString().replace("T", " ").replace(".000Z", " UTC");
}

function coordinate(value: bigint): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  return `${negative ? "-" : ""}${magnitude / 10_000_000n}.${(magnitude % 10_000_000n).toString().padStart(7, "0")}`;
}

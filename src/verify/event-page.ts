import type { EventActivity } from "./event-activity";
import { html, type SafeHtml } from "./html";
import { chainPart, detailRows, document, txLine } from "./ticket-page";
import type { TicketVerification, VerifiedEvent } from "./ticket-verification.service";

type Where = Pick<TicketVerification, "chainId" | "registryAddress" | "latestBlock" | "confirmations">;

const KIND_LABELS: Record<EventActivity["recent"][number]["kind"], string> = {
  sale: "Sale",
  "check-in": "Check-in",
  invalidation: "Invalidation",
  claim: "Claim to a wallet",
  resale: "Resale",
  update: "Details updated",
  cancellation: "Event cancelled",
};

/** One event as the chain records it: details, counts, latest transactions and links to its tokens' pages. */
export function eventPage(where: Where, event: VerifiedEvent, activity: EventActivity): string {
  const details = event.details;
  const name = details ? details.name || "(no name)" : "(details not found in the logs)";
  const depthOf = (blockNumber: number) => Math.max(0, where.latestBlock - blockNumber + 1);
  return document(
    `Event ${event.eventIndex} on chain`,
    html`<h1>Event <code data-fact="event-index">${event.eventIndex}</code>: <span data-fact="event-name">${name}</span></h1>
      <p class="sub">What the registry contract records for this event, read from the chain just now, not from the service's database.</p>
      ${event.cancelled ? html`<p class="verdict bad" data-fact="verdict">Event cancelled: none of its tickets is valid.</p>` : ""}
      <section>
        <h2>Counts</h2>
        <ul class="flags">
          ${count("sold", "Sold", event.ticketsSold)} ${count("checked-in", "Checked in", activity.checkedIn)}
          ${count("invalidated", "Invalidated", activity.invalidated)} ${count("claimed", "Claimed", activity.claimed)}
          ${count("resales", "Resales", activity.resales)}
        </ul>
        <p class="none">Sold is the registry's own count; the others are tallied from its logs up to block ${activity.scannedTo}.</p>
      </section>
      <section>
        <h2>Event</h2>
        <dl>
          ${details ? detailRows(details) : ""}
          <dt>Details</dt>
          <dd data-fact="event-details-check">
            ${event.detailsMatchStorage ? "match the hash the registry stores" : "DO NOT match the hash the registry stores"}
          </dd>
          <dt>Event key</dt>
          <dd><code data-fact="event-key">${event.eventKey}</code> (SHA-256 of the ticketeerId and eventId)</dd>
          <dt>Organization</dt>
          <dd><code>${event.ticketeer}</code> (SHA-256 of the ticketeerId)</dd>
          <dt>Custody address</dt>
          <dd><code>${event.custody}</code></dd>
          <dt>Registered</dt>
          <dd>${event.registered ? txLine(event.registered, where, "event-tx") : html`<span class="none">log not found</span>`}</dd>
        </dl>
      </section>
      <section>
        <h2>Latest transactions</h2>
        ${
          activity.recent.length === 0
            ? html`<p class="none">No sale, check-in, invalidation, claim or resale yet.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th>What</th>
                    <th>Transaction</th>
                  </tr>
                </thead>
                <tbody>
                  ${activity.recent.map(
                    (entry) =>
                      html`<tr data-activity="${entry.kind}">
                        <td>${KIND_LABELS[entry.kind]}</td>
                        <td>${txLine({ ...entry, depth: depthOf(entry.blockNumber) }, where, "activity-tx")}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
        }
      </section>
      <section>
        <h2>Tokens</h2>
        <p data-fact="token-total">${tokensLine(event.ticketsSold, activity.tokens.length)}</p>
        <ul>
          ${activity.tokens.map(
            (tokenId) =>
              html`<li>
                <a data-link="token-page" href="../tokens/${tokenId}"><code>${tokenId}</code></a>
              </li>`,
          )}
        </ul>
      </section>
      ${chainPart({ ...where, ticketHash: null })}`,
  );
}

/** The registry has no event of this index. */
export function eventNotFoundPage(where: Pick<TicketVerification, "chainId" | "registryAddress" | "latestBlock">, eventIndex: bigint): string {
  return document(
    `Event ${eventIndex} not found on chain`,
    html`<h1>Not found on chain</h1>
      <section>
        <p class="verdict bad" data-fact="verdict">No event <code data-fact="event-index">${eventIndex}</code> is registered on chain.</p>
      </section>
      ${chainPart({ ...where, ticketHash: null, confirmations: null })}`,
  );
}

function count(name: string, label: string, value: number | bigint): SafeHtml {
  return html`<li class="flag" data-fact="count-${name}" data-value="${value}">${label}: ${value}</li>`;
}

function tokensLine(sold: bigint, shown: number): string {
  if (sold === 0n) return "No ticket sold yet.";
  return BigInt(shown) >= sold ? `All ${sold} tokens, newest first:` : `The latest ${shown} of ${sold} tokens, newest first:`;
}

import { isTokenUri } from "../common/validation/token-uri";
import { registryPriceText } from "../registry";
import type { TokenFacts } from "./chain/token-facts";

/** One trait of a token, in OpenSea's form: dates as Unix seconds with display_type "date". */
export interface TokenAttribute {
  trait_type: string;
  value: string | number;
  display_type?: "date" | "number";
}

/** ERC-721 metadata JSON (EIP-721's schema: name, description, image) with OpenSea's external_url and attributes. */
export interface TokenMetadata {
  name: string;
  description: string;
  image?: string;
  external_url: string;
  attributes: TokenAttribute[];
}

/**
 * A token's metadata from what the chain records of it (`facts`) and the ticket's `uri` from the ledger:
 * where an integrator gave a ticket its own uri (soldTicket or updateTicket), that is the token's image;
 * otherwise the event's imageUrl is. A uri the ledger took before it took only https, ipfs and ar
 * (javascript:, data:, http: ...) is never shown: the event's image stands in, as if there were none. Attributes the event left unset (no venue, no times) are left out
 * rather than shown as 0. Raw ticket and event ids never appear: the chain holds only their hashes.
 */
export function tokenMetadata(facts: TokenFacts, uri: string, externalUrl: string): TokenMetadata {
  const event = facts.event;
  const image = (isTokenUri(uri) ? uri : "") || event?.imageUrl || "";
  return {
    name: `${event?.name || "Ticket"} #${facts.serial}`,
    description: describe(facts),
    ...(image ? { image } : {}),
    external_url: externalUrl,
    attributes: attributesOf(facts),
  };
}

function attributesOf(facts: TokenFacts): TokenAttribute[] {
  const event = facts.event;
  const attributes: TokenAttribute[] = [];
  if (event) {
    if (event.name) attributes.push({ trait_type: "Event", value: event.name });
    if (event.organizer) attributes.push({ trait_type: "Organizer", value: event.organizer });
    if (event.startTime !== 0n) attributes.push({ trait_type: "Start", display_type: "date", value: Number(event.startTime) });
    if (event.endTime !== 0n) attributes.push({ trait_type: "End", display_type: "date", value: Number(event.endTime) });
    if (event.latitude !== 0 || event.longitude !== 0) {
      attributes.push({ trait_type: "Venue latitude", value: event.latitude }, { trait_type: "Venue longitude", value: event.longitude });
    }
  }
  attributes.push({ trait_type: "Ticket number", display_type: "number", value: Number(facts.serial) });
  attributes.push({ trait_type: "State", value: facts.state });
  attributes.push({ trait_type: "Resales", display_type: "number", value: facts.resales });
  if (facts.lastPrice !== null) attributes.push({ trait_type: "Last price", display_type: "number", value: Number(registryPriceText(facts.lastPrice)) });
  if (event?.currency) attributes.push({ trait_type: "Currency", value: event.currency });
  return attributes;
}

function describe(facts: TokenFacts): string {
  const event = facts.event;
  const what = event?.name ? `Ticket #${facts.serial} to ${event.name}` : `Ticket #${facts.serial}`;
  const by = event?.organizer ? `, organized by ${event.organizer}` : "";
  const when = event && event.startTime !== 0n ? `, starting ${utcDate(event.startTime)}` : "";
  return `${what}${by}${when}. State: ${facts.state}. Every fact here is read from the ticket registry on chain.`;
}

/** Seconds as an ISO date and minute in UTC; beyond Date's range, the number itself. */
function utcDate(seconds: bigint): string {
  if (seconds > 8_640_000_000_000n) return `${seconds} (seconds since 1970)`;
  return new Date(Number(seconds) * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

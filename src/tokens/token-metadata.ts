import { type ChainTraitType, isChainTrait } from "../common/token-traits";
import { isTokenUri } from "../common/validation/token-uri";
import { type AttributeDisplayType, registryPriceText, type TicketAttribute } from "../registry";
import type { TokenFacts } from "./chain/token-facts";
import type { LedgerMetadata } from "./ledger-metadata.store";

/** One trait of a token, in OpenSea's form: dates as Unix seconds with display_type "date". */
export interface TokenAttribute {
  trait_type: string;
  value: string | number;
  display_type?: AttributeDisplayType;
}

/** A trait the chain states: its name is one of CHAIN_TRAIT_TYPES, which acceptance keeps integrators' attributes from. */
interface ChainAttribute extends TokenAttribute {
  trait_type: ChainTraitType;
}

/** ERC-721 metadata JSON (EIP-721's schema: name, description, image) with OpenSea's external_url and attributes. */
export interface TokenMetadata {
  name: string;
  description: string;
  image?: string;
  animation_url?: string;
  external_url: string;
  attributes: TokenAttribute[];
}

/**
 * A token's metadata from what the chain records of it (`facts`) and what the integrator gave the
 * ticket and its event in the ledger (`ledger`): its name and description where set (else ones
 * written from the chain's facts; the event's description comes before those), its animation, and
 * its image: the ticket's uri, else the event's ticketImageUrl, else the event's imageUrl. A URI the
 * ledger took before it took only https, ipfs and ar (javascript:, data:, http: ...) is never shown,
 * as if there were none. The chain's attributes come first, the integrator's after them; one bearing a
 * chain trait's name (acceptance refuses those) is left out, so none can stand beside the chain's.
 * Attributes the event left unset (no venue, no times) are left out rather than shown as 0. Raw
 * ticket and event ids never appear: the chain holds only their hashes.
 */
export function tokenMetadata(facts: TokenFacts, ledger: LedgerMetadata, externalUrl: string): TokenMetadata {
  const event = facts.event;
  const { ticket } = ledger;
  const image = shown(ticket.uri) || shown(ledger.event.ticketImageUrl) || event?.imageUrl || "";
  const animation = shown(ticket.animationUrl);
  return {
    name: ticket.name || `${event?.name || "Ticket"} #${facts.serial}`,
    description: ticket.description || ledger.event.description || describe(facts),
    ...(image ? { image } : {}),
    ...(animation ? { animation_url: animation } : {}),
    external_url: externalUrl,
    attributes: [...attributesOf(facts), ...integratorAttributes(ticket.attributes ?? [])],
  };
}

/** A URI the token may show, or blank. */
function shown(uri: string | null | undefined): string {
  return uri && isTokenUri(uri) ? uri : "";
}

function integratorAttributes(attributes: readonly TicketAttribute[]): TokenAttribute[] {
  return attributes
    .filter(({ traitType }) => !isChainTrait(traitType))
    .map(({ traitType, value, displayType }) => ({ trait_type: traitType, value, ...(displayType ? { display_type: displayType } : {}) }));
}

function attributesOf(facts: TokenFacts): ChainAttribute[] {
  const event = facts.event;
  const attributes: ChainAttribute[] = [];
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

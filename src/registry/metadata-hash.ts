import canonicalize from "canonicalize";
import { keccak256, toUtf8Bytes, ZeroHash } from "ethers";

/** How a wallet renders an attribute's value (OpenSea's `display_type`). */
export const ATTRIBUTE_DISPLAY_TYPES = ["number", "date", "boost_number", "boost_percentage"] as const;
export type AttributeDisplayType = (typeof ATTRIBUTE_DISPLAY_TYPES)[number];

/** One of an integrator's traits of a ticket: a seat, a section, a tier. */
export interface TicketAttribute {
  traitType: string;
  value: string | number;
  displayType?: AttributeDisplayType;
}

/** What an integrator says of a ticket beyond the chain's facts: every field is optional. */
export interface TicketMetadata {
  uri?: string | null;
  name?: string | null;
  description?: string | null;
  animationUrl?: string | null;
  attributes?: readonly TicketAttribute[] | null;
}

/** What an integrator says of an event beyond the details the chain holds. */
export interface EventMetadata {
  description?: string | null;
  ticketImageUrl?: string | null;
}

/**
 * The canonical document of a ticket's off-chain metadata: its fields that are set (null and absent
 * alike are left out), attributes in the integrator's order with `displayType` only when given. The
 * registry records the keccak-256 of its RFC 8785 (JCS) serialization, so anyone with any JCS
 * library recomputes it (docs/integrators/metadata.md).
 */
export function canonicalTicketDocument(metadata: TicketMetadata): Record<string, unknown> {
  const attributes = metadata.attributes?.map(({ traitType, value, displayType }) => ({ traitType, value, ...(displayType ? { displayType } : {}) }));
  return setFields({ ...metadata, attributes: attributes?.length ? attributes : null });
}

/** The canonical document of an event's off-chain metadata: its description and ticket image when set. */
export function canonicalEventDocument(metadata: EventMetadata): Record<string, unknown> {
  return setFields({ description: metadata.description, ticketImageUrl: metadata.ticketImageUrl });
}

/** RFC 8785 serialization of a canonical document: the exact bytes whose hash the registry records. */
export function canonicalJson(document: Record<string, unknown>): string {
  const json = canonicalize(document);
  if (json === undefined) throw new TypeError("metadata document cannot be serialized");
  return json;
}

/** keccak-256 of a ticket's canonical metadata, 0x-hex: what the registry records for the token. */
export function ticketMetadataHash(metadata: TicketMetadata): string {
  return keccak256(toUtf8Bytes(canonicalJson(canonicalTicketDocument(metadata))));
}

/** keccak-256 of an event's canonical metadata, or ZeroHash when it has none (the registry's "no metadata"). */
export function eventMetadataHash(metadata: EventMetadata): string {
  const document = canonicalEventDocument(metadata);
  return Object.keys(document).length === 0 ? ZeroHash : keccak256(toUtf8Bytes(canonicalJson(document)));
}

/** True when a ticket says nothing beyond the chain's facts: its sale then carries no metadata hash. */
export function hasTicketMetadata(metadata: TicketMetadata): boolean {
  return Object.keys(canonicalTicketDocument(metadata)).length > 0;
}

function setFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && value !== undefined));
}

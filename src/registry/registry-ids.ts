import { hash } from "node:crypto";

import { AbiCoder, getBytes } from "ethers";

const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_LIMIT = 1n << 256n;

/** A token id as tokenURI and the API write it: decimal digits, at most the 78 of 2^256 - 1. */
export const DECIMAL_TOKEN_ID_PATTERN = /^[0-9]{1,78}$/;

/** A token id written in decimal, or null when `text` is not one below 2^256. */
export function parseTokenId(text: string): bigint | null {
  if (!DECIMAL_TOKEN_ID_PATTERN.test(text)) return null;
  const tokenId = BigInt(text);
  return tokenId < UINT256_LIMIT ? tokenId : null;
}

/** tokenId = eventIndex << 64 | serial: the service numbers both, so a token's id is known at acceptance. */
export function tokenIdOf(eventIndex: bigint, serial: bigint): bigint {
  assertUint64("eventIndex", eventIndex, 1n);
  assertUint64("serial", serial, 1n);
  return (eventIndex << 64n) | serial;
}

/** Whether `tokenId` can name a ticket of a registry: an event index from 1 to 2^40 - 1 and a serial from 1. */
export function isTicketTokenId(tokenId: bigint): boolean {
  const eventIndex = tokenId >> 64n;
  return eventIndex >= 1n && eventIndex <= (1n << 40n) - 1n && (tokenId & UINT64_MAX) !== 0n;
}

export function splitTokenId(tokenId: bigint): { eventIndex: bigint; serial: bigint } {
  return { eventIndex: tokenId >> 64n, serial: tokenId & UINT64_MAX };
}

/** sha256(abi.encode(ticketeerId, eventId)): names an event on chain without revealing its id. */
export function eventKeyOf(ticketeerId: string, eventId: string): string {
  return sha256Hex(getBytes(AbiCoder.defaultAbiCoder().encode(["string", "string"], [ticketeerId, eventId])));
}

/** sha256(ticketeerId): the organization's identity on chain. */
export function ticketeerKeyOf(ticketeerId: string): string {
  return sha256Hex(ticketeerId);
}

/** sha256(ticketId): recorded with the sale so anyone holding the id can find and verify the ticket. */
export function ticketHashOf(ticketId: string): string {
  return sha256Hex(ticketId);
}

function assertUint64(name: string, value: bigint, min: bigint): void {
  if (value < min || value > UINT64_MAX) {
    throw new RangeError(`${name} must be an integer from ${min} to ${UINT64_MAX}, got ${value}`);
  }
}

/** SHA-256 as 0x-prefixed hex; strings are hashed as UTF-8. */
function sha256Hex(data: string | Uint8Array): string {
  // The one-shot hash: a sale hashes its ticketId, and a Hash object per call cost more than the digest.
  return "0x" + hash("sha256", data, "hex");
}

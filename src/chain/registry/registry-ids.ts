import { AbiCoder, sha256, toUtf8Bytes } from "ethers";

const UINT64_MAX = (1n << 64n) - 1n;

/** tokenId = eventIndex << 64 | serial: the service numbers both, so a token's id is known at acceptance. */
export function tokenIdOf(eventIndex: bigint, serial: bigint): bigint {
  assertUint64("eventIndex", eventIndex, 1n);
  assertUint64("serial", serial, 1n);
  return (eventIndex << 64n) | serial;
}

export function splitTokenId(tokenId: bigint): { eventIndex: bigint; serial: bigint } {
  return { eventIndex: tokenId >> 64n, serial: tokenId & UINT64_MAX };
}

/** sha256(abi.encode(ticketeerId, eventId)): names an event on chain without revealing its id. */
export function eventKeyOf(ticketeerId: string, eventId: string): string {
  return sha256(AbiCoder.defaultAbiCoder().encode(["string", "string"], [ticketeerId, eventId]));
}

/** sha256(ticketeerId): the organization's identity on chain. */
export function ticketeerKeyOf(ticketeerId: string): string {
  return sha256(toUtf8Bytes(ticketeerId));
}

/** sha256(ticketId): recorded with the sale so anyone holding the id can find and verify the ticket. */
export function ticketHashOf(ticketId: string): string {
  return sha256(toUtf8Bytes(ticketId));
}

function assertUint64(name: string, value: bigint, min: bigint): void {
  if (value < min || value > UINT64_MAX) {
    throw new RangeError(`${name} must be an integer from ${min} to ${UINT64_MAX}, got ${value}`);
  }
}

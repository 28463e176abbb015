/**
 * Why a live API key was refused, carried beside the interface's `message: "Forbidden"` (a missing,
 * unknown or revoked key gets no code: exactly `{"message":"Forbidden"}`):
 * - `key_scope`: the key's scope does not cover the operation (or one of a /stream's actions);
 * - `key_ip`: the key is bound to IP ranges and the request came from outside them.
 */
export const KEY_REFUSAL_CODES = ["key_scope", "key_ip"] as const;

export type KeyRefusalCode = (typeof KEY_REFUSAL_CODES)[number];

/** A live key refused for this request: nothing of it is applied; the exception filter answers the 403. */
export class KeyRefused extends Error {
  constructor(readonly code: KeyRefusalCode) {
    super(`API key refused: ${code}`);
    this.name = "KeyRefused";
  }
}

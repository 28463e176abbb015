import { getAddress } from "ethers";
import currencyCodes from "currency-codes";
import { isURL } from "class-validator";

import { characterCount, MAX_TEXT_LENGTH } from "./text";

export { MAX_TEXT_LENGTH } from "./text";

const ISO_4217 = new Set(currencyCodes.codes());

export function isCurrencyCode(value: unknown): boolean {
  return typeof value === "string" && ISO_4217.has(value);
}

/** http(s) URLs (or https only), host required, at most 255 characters. */
export function isWebUrl(value: unknown, httpsOnly: boolean): boolean {
  if (typeof value !== "string" || characterCount(value) > MAX_TEXT_LENGTH) return false;
  return isURL(value, { protocols: httpsOnly ? ["https"] : ["http", "https"], require_protocol: true, require_tld: false, allow_underscores: true });
}

/**
 * A 20-byte hex address; mixed case must carry a valid EIP-55 checksum. Not the zero address: the
 * registry refuses to transfer a claimed ticket there (InvalidReceiver), so accepting it would fail on chain.
 */
export function isWalletAddress(value: unknown): boolean {
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value) || /^0x0{40}$/.test(value)) return false;
  try {
    getAddress(value);
    return true;
  } catch {
    return false;
  }
}

import { getAddress } from "ethers";

import { ApiError } from "../common/errors/api-error";
import { invalidField } from "../common/errors/error-detail";
import { DECIMAL_TOKEN_ID_PATTERN } from "../registry";

/** The most tickets one page of GET /api/v1/tickets holds. */
export const MAX_PAGE_SIZE = 100;

const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** GET /api/v1/tickets?holder=…&cursor=…&limit=…, checked: a 400 names the parameter at fault. */
export class HolderQuery {
  private constructor(
    readonly holder: string,
    readonly afterTokenId: bigint,
    readonly limit: number,
  ) {}

  static parse(holder: unknown, cursor: unknown, limit: unknown): HolderQuery {
    return new HolderQuery(parseHolder(holder), parseCursor(cursor), parseLimit(limit));
  }

  /** The opaque cursor of the page after the ticket with this tokenId. */
  cursorAfter(tokenId: bigint): string {
    return Buffer.from(tokenId.toString()).toString("base64url");
  }
}

function parseHolder(value: unknown): string {
  if (value === undefined) throw new ApiError(400, invalidField("holder", "is required: the address whose tickets to list"));
  if (typeof value !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(value))
    throw new ApiError(400, invalidField("holder", "must be an address: 0x and 40 hex digits"));
  try {
    return getAddress(value);
  } catch {
    throw new ApiError(400, invalidField("holder", "has mixed letter case that is not its EIP-55 checksum"));
  }
}

function parseCursor(value: unknown): bigint {
  if (value === undefined) return 0n;
  const decoded = typeof value === "string" && CURSOR_PATTERN.test(value) ? Buffer.from(value, "base64url").toString() : "";
  if (!DECIMAL_TOKEN_ID_PATTERN.test(decoded)) throw new ApiError(400, invalidField("cursor", "is not a cursor this endpoint gave (nextCursor)"));
  return BigInt(decoded);
}

function parseLimit(value: unknown): number {
  if (value === undefined) return MAX_PAGE_SIZE;
  if (typeof value !== "string" || !/^[0-9]{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE_SIZE) {
    throw new ApiError(400, invalidField("limit", `must be an integer from 1 to ${MAX_PAGE_SIZE}`));
  }
  return Number(value);
}

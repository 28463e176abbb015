/**
 * A place in the ledger's change log: the writing transaction's id and the entry's id, both decimal.
 * As an SSE id it reads `{tx}-{id}`; the client sends it back as Last-Event-ID to resume after it.
 */
export interface ChangePosition {
  tx: string;
  id: string;
}

/** Before every entry. */
export const LOG_START: ChangePosition = { tx: "0", id: "0" };

const POSITION = /^(\d{1,20})-(\d{1,19})$/;

export function formatPosition(position: ChangePosition): string {
  return `${position.tx}-${position.id}`;
}

/** The position of an SSE id this service gave; null for anything else. */
export function parsePosition(text: string): ChangePosition | null {
  const match = POSITION.exec(text.trim());
  if (!match) return null;
  const [, tx, id] = match;
  if (BigInt(tx) > 0xffffffffffffffffn || BigInt(id) > 0x7fffffffffffffffn) return null;
  return { tx: BigInt(tx).toString(), id: BigInt(id).toString() };
}

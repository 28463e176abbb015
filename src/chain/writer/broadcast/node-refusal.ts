/**
 * What a node answers when it refuses a raw transaction, as geth and bor word it. Anything else a
 * node says is `other`.
 */
export const NODE_REFUSALS = [
  "oversized data",
  "already known",
  "nonce too low",
  "replacement transaction underpriced",
  "transaction underpriced",
  "exceeds block gas limit",
  "intrinsic gas too low",
  "insufficient funds for gas * price + value",
  "txpool is full",
  "max fee per gas less than block base fee",
] as const;

export type NodeRefusal = (typeof NODE_REFUSALS)[number] | "other";

/**
 * The class of a node's refusal message. Longer messages that contain a shorter one are matched
 * first ("replacement transaction underpriced" before "transaction underpriced"); matching is
 * case-insensitive and allows the details geth appends (": address 0x…, maxFeePerGas: …").
 */
export function classifyRefusal(message: string): NodeRefusal {
  const text = message.toLowerCase();
  // NODE_REFUSALS lists "replacement transaction underpriced" before "transaction underpriced".
  return (
    NODE_REFUSALS.find((refusal) => text.includes(refusal)) ?? (text.includes("insufficient funds") ? "insufficient funds for gas * price + value" : "other")
  );
}

/**
 * The JSON-RPC error a node answered, from what ethers throws for it (its `info.error` or `error`);
 * null when the request got no JSON-RPC answer (the node could not be reached, timed out, ...).
 */
export function nodeErrorMessage(error: unknown): string | null {
  if (typeof error !== "object" || error === null) return null;
  const candidates = [(error as { info?: { error?: unknown } }).info?.error, (error as { error?: unknown }).error];
  for (const candidate of candidates) {
    if (typeof candidate === "object" && candidate !== null && typeof (candidate as { message?: unknown }).message === "string") {
      return (candidate as { message: string }).message;
    }
  }
  return null;
}

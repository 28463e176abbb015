import { Injectable, Logger } from "@nestjs/common";

import type { BatchLimits } from "../sending/batch-plan";
import type { NodeRefusal } from "../broadcast/node-refusal";
import type { SignedTransaction } from "../signed-transaction";

/** How long a lesson holds: a node's limits may have been a passing state (a congested pool, a lowered block gas limit). */
export const LEARNED_FOR_MS = 10 * 60_000;

/** EIP-7623's calldata floor for a non-zero byte (10 per token, 4 tokens): the first lesson; each further refusal doubles it. */
export const CALLDATA_FLOOR_GAS_PER_BYTE = 40;
const MAX_CALLDATA_GAS_PER_BYTE = 1_024;
/**
 * Below these a refusal as too large teaches nothing (a node that refuses 32 KiB, one of geth's
 * transaction slots, or 200,000 gas is refusing everything for now): the same bytes go again later.
 */
export const FLOOR_BYTES = 32_768;
export const FLOOR_GAS = 200_000;

/**
 * Limits a node taught the writer by refusing a transaction as too large: the configured limits
 * (TX_GAS_CAP, the block share, TX_MAX_BYTES) stay the upper bound, and each such refusal lowers
 * the signer's own to half of what was refused (or adds the calldata floor after `intrinsic gas too
 * low`, doubling on each further one). A lesson holds for LEARNED_FOR_MS after the latest refusal; a restart starts again from the configuration.
 */
@Injectable()
export class LearnedLimits {
  private readonly logger = new Logger(LearnedLimits.name);
  private readonly learned = new Map<string, Partial<BatchLimits> & { until: number }>();

  /** The signer's limits: the configured ones, lowered by what its node refused. */
  of(signer: string, configured: BatchLimits): BatchLimits {
    const held = this.learned.get(signer);
    const learned: Partial<BatchLimits> = held && held.until > Date.now() ? held : {};
    return {
      gas: Math.min(configured.gas, learned.gas ?? Number.POSITIVE_INFINITY),
      bytes: Math.min(configured.bytes, learned.bytes ?? Number.POSITIVE_INFINITY),
      calldataGasPerByte: Math.max(configured.calldataGasPerByte ?? 0, learned.calldataGasPerByte ?? 0),
    };
  }

  /** Whether a refusal as too large says something about this transaction's size: it is above the floor the refusal concerns. */
  aboveFloor(refused: SignedTransaction, refusal: NodeRefusal): boolean {
    if (refusal === "exceeds block gas limit") return Number(refused.gasLimit) > FLOOR_GAS;
    if (refusal === "oversized data") return bytesOf(refused) > FLOOR_BYTES;
    return refusal === "intrinsic gas too low";
  }

  /** Learns from a transaction the node refused as too large for it; false when the refusal teaches nothing (at a floor already). */
  learn(refused: SignedTransaction, refusal: NodeRefusal): boolean {
    if (!this.aboveFloor(refused, refusal)) return false;
    const held = this.learned.get(refused.signer);
    const learned = { ...(held && held.until > Date.now() ? held : {}), until: Date.now() + LEARNED_FOR_MS };
    if (refusal === "exceeds block gas limit") learned.gas = Math.max(FLOOR_GAS, Math.min(learned.gas ?? Infinity, Math.floor(Number(refused.gasLimit) / 2)));
    else if (refusal === "oversized data") learned.bytes = Math.max(FLOOR_BYTES, Math.min(learned.bytes ?? Infinity, Math.floor(bytesOf(refused) / 2)));
    else if (learned.calldataGasPerByte === MAX_CALLDATA_GAS_PER_BYTE) return false;
    else learned.calldataGasPerByte = Math.min(MAX_CALLDATA_GAS_PER_BYTE, 2 * (learned.calldataGasPerByte ?? CALLDATA_FLOOR_GAS_PER_BYTE / 2));
    this.learned.set(refused.signer, learned);
    this.logger.warn(
      { signer: refused.signer, refusal, gas: learned.gas, bytes: learned.bytes, calldataGasPerByte: learned.calldataGasPerByte },
      `the node refused ${refused.hash} (${refusal}): batches of ${refused.signer} are planned smaller`,
    );
    return true;
  }
}

function bytesOf(tx: SignedTransaction): number {
  return (tx.raw.length - 2) / 2;
}

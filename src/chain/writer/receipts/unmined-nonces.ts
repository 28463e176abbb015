import { Injectable, Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { RetryBackOff } from "../broadcast/retry-back-off";
import { RefusalResponder } from "../refusals/refusal-responder";
import { TakenNonces } from "../refusals/taken-nonces";
import type { OpenTransaction } from "../signed-transaction";
import type { SignerSlot } from "../signer-slot";
import { ReceiptsStore } from "./receipts.store";
import { Resender } from "./resender";

/** How long the node must not know broadcast bytes before they are sent again: longer than a block is being mined. */
const UNKNOWN_RESEND_AFTER_MS = 3_000;

/**
 * A nonce none of whose attempts is mined: given up when another transaction took it (see
 * TakenNonces); otherwise sent again when a reorg took its block or the node lost its bytes,
 * replaced with higher fees once stuck for STUCK_TX_AFTER_MS, or answered when the node refused it.
 */
@Injectable()
export class UnminedNonces {
  private readonly logger = new Logger(UnminedNonces.name);
  /** Broadcast transactions the node did not know at the last pass, with when it first did not. */
  private readonly unknownSince = new Map<string, number>();

  constructor(
    private readonly taken: TakenNonces,
    private readonly store: ReceiptsStore,
    private readonly backOff: RetryBackOff,
    private readonly refusals: RefusalResponder,
    private readonly resender: Resender,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** Given up as taken by another transaction, or still waiting to be mined (and seen to). */
  async look(provider: JsonRpcProvider, slot: SignerSlot, attempts: OpenTransaction[], confirmedCount: () => Promise<number>): Promise<"taken" | "unmined"> {
    if (await this.taken.givenUp(provider, attempts, await confirmedCount())) return "taken";
    await this.onUnmined(provider, slot, attempts);
    return "unmined";
  }

  /** A mined nonce: none of its bytes is waited on as unknown any more. */
  forget(attempts: readonly OpenTransaction[]): void {
    for (const attempt of attempts) this.unknownSince.delete(attempt.hash);
  }

  private async onUnmined(provider: JsonRpcProvider, slot: SignerSlot, attempts: OpenTransaction[]): Promise<void> {
    const reorged = attempts.filter((a) => a.status === "mined");
    for (const attempt of reorged) {
      this.logger.warn(
        { signer: attempt.signer, nonce: attempt.nonce.toString(), hash: attempt.hash },
        `receipt of ${attempt.hash} vanished (reorg): sending it again`,
      );
      await this.store.markUnmined(attempt.id);
    }
    const latest = attempts[attempts.length - 1];
    // A transaction a reorg took back was mined, not stuck: the same bytes go out again now (the node
    // may hold them again: then it knows them), and its stuck clock restarts.
    if (reorged.length > 0) return this.resender.sendAgain(provider, slot, latest);
    const sentAt = latest.broadcastAt ?? latest.createdAt;
    if (latest.status !== "signed" && Date.now() - sentAt.getTime() > this.config.chain.writer.stuckAfterMs) {
      return this.resender.replace(provider, slot, latest, `stuck since ${sentAt.toISOString()}`);
    }
    // Refused to the writer: answered now, instead of sending the same bytes again.
    const unanswered = latest.status === "signed" ? this.backOff.takeUnanswered(latest) : null;
    if (unanswered) {
      try {
        return await this.refusals.respond(provider, slot, latest, unanswered);
      } finally {
        this.backOff.answered(latest);
      }
    }
    // Refused before: tried again only once its back-off has passed.
    if (!this.backOff.mayRetry(latest)) return;
    if (latest.status === "signed") return this.resender.sendOrphaned(provider, slot, latest);
    // Bytes the node does not know (lost by a restarted node, dropped by a reorg) go out again; only
    // the latest attempt, since a replacement supersedes the ones before it.
    if (await this.unknownLongEnough(provider, latest.hash)) await this.resender.sendAgain(provider, slot, latest);
  }

  /**
   * Whether the node has not known these bytes for UNKNOWN_RESEND_AFTER_MS. A node between pool and
   * block (Anvil while it mines, slower on a busy machine) briefly knows neither, and bytes sent
   * again then are sent twice: a pass count alone proved too short at a 100 ms poll.
   */
  private async unknownLongEnough(provider: JsonRpcProvider, hash: string): Promise<boolean> {
    if (await provider.getTransaction(hash)) {
      this.unknownSince.delete(hash);
      return false;
    }
    const since = this.unknownSince.get(hash);
    if (since === undefined) {
      this.unknownSince.set(hash, Date.now());
      return false;
    }
    if (Date.now() - since < UNKNOWN_RESEND_AFTER_MS) return false;
    this.unknownSince.delete(hash);
    return true;
  }
}

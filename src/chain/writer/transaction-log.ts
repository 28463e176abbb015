import type { Logger } from "@nestjs/common";

import { summarizeRequestIds } from "../../logging/request-ids";
import type { ClosedAction } from "./closed-action";
import type { MinedReceipt } from "./receipts/mined-receipt";
import type { CarriedAction, SignedTransaction } from "./signed-transaction";

/**
 * The writer's and the watcher's log lines. One line per transaction at info carries the request
 * ids of its actions (the first few, and how many), so a request leads to its transaction by
 * `requestIds`; one line per action at debug carries the rest.
 */

export function logSent(logger: Logger, signed: SignedTransaction & { carried: CarriedAction[] }): void {
  const transaction = { signer: signed.signer, nonce: signed.nonce.toString(), hash: signed.hash };
  logger.log(
    {
      ...transaction,
      attempt: signed.attempt,
      gasLimit: signed.gasLimit.toString(),
      actionCount: signed.carried.length,
      ...summarizeRequestIds(signed.carried.map((a) => a.requestId)),
    },
    `sending ${signed.carried.length} actions in ${signed.hash} (nonce ${signed.nonce})`,
  );
  for (const action of signed.carried) logger.debug({ ...transaction, actionId: action.id, requestId: action.requestId }, "action sent");
}

export function logClosed(logger: Logger, signed: SignedTransaction, receipt: MinedReceipt, actions: readonly ClosedAction[]): void {
  const transaction = { signer: signed.signer, nonce: signed.nonce.toString(), hash: receipt.hash, blockNumber: receipt.blockNumber };
  const counts = countByStatus(actions);
  const fields = {
    ...transaction,
    gasUsed: receipt.gasUsed.toString(),
    actionCount: actions.length,
    ...counts,
    ...summarizeRequestIds(actions.map((a) => a.requestId)),
  };
  if (receipt.status === 1) {
    logger.log(
      fields,
      `${receipt.hash} confirmed in block ${receipt.blockNumber}: ${counts.confirmed} actions confirmed, ${counts.failed} refused by the registry`,
    );
  } else {
    logger.warn(fields, `${receipt.hash} reverted: ${counts.requeued} actions go back in line, ${counts.failed} failed for good`);
  }
  for (const action of actions) {
    logger.debug(
      { ...transaction, actionId: action.id, requestId: action.requestId, status: action.status, errorCode: action.errorCode },
      `action ${action.status}`,
    );
  }
}

/** Actions the registry's codec refuses fail without a transaction: a bug or bad data, worth a warning. */
export function logUnencodable(logger: Logger, actions: readonly ClosedAction[], reasons: readonly { id: string; reason: string }[]): void {
  if (actions.length === 0) return;
  logger.warn(
    { actionCount: actions.length, ...summarizeRequestIds(actions.map((a) => a.requestId)) },
    `${actions.length} actions cannot be encoded for the registry: failed without a transaction`,
  );
  const reasonOf = new Map(reasons.map((r) => [r.id, r.reason]));
  for (const action of actions)
    logger.debug({ actionId: action.id, requestId: action.requestId, errorCode: action.errorCode, reason: reasonOf.get(action.id) }, "action unencodable");
}

function countByStatus(actions: readonly ClosedAction[]): { confirmed: number; failed: number; requeued: number; errorCodes: Record<string, number> } {
  const counts = { confirmed: 0, failed: 0, requeued: 0, errorCodes: {} as Record<string, number> };
  for (const action of actions) {
    if (action.status === "confirmed") counts.confirmed++;
    else if (action.status === "waiting_broadcast") counts.requeued++;
    else counts.failed++;
    if (action.errorCode) counts.errorCodes[action.errorCode] = (counts.errorCodes[action.errorCode] ?? 0) + 1;
  }
  return counts;
}

import { writeFile } from "node:fs/promises";
import path from "node:path";

import type { LedgerReconcileReport, LostTicket } from "../chain/ledger-reconcile/ledger-reconciler";
import { KIND_OF_BATCH_ITEM } from "../common/actions";
import { chainFailureCode } from "../registry";
import { RefusedError } from "./cli-errors";
import type { Command } from "./command";
import { note, print, printJson } from "./output";

/** At most this many lost events and tickets each are printed; the report file has them all. */
const SHOWN = 20;

export const ledgerReconcile: Command = {
  name: "ledger reconcile",
  summary:
    "After restoring the database: read the registry's logs the ledger may have lost, move event indexes, serials and signer " +
    "nonces past the chain, and write a report (--report, default ./ledger-reconcile-<time>.json) of the events and tickets " +
    "on chain the ledger does not know. Refused while a worker runs.",
  operands: [],
  requiredOptions: [],
  optionalOptions: ["report", "json"],
  async run({ ledger }, { optional, json }) {
    const workers = await ledger.workers();
    if (workers > 0)
      throw new RefusedError(
        `${workers} worker${workers === 1 ? "" : "s"} of the chain writer running: stop every worker, then reconcile, then start them again`,
      );
    const report = await ledger.reconciler().reconcile();
    const file = path.resolve(optional.report ?? `ledger-reconcile-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
    await writeFile(file, JSON.stringify(reportJson(report), null, 2) + "\n");
    if (json) {
      printJson(reportJson(report));
      note(`report written to ${file}`);
      return;
    }
    printSummary(report, file);
  },
};

/** The report as JSON: numbers that can exceed 2^53 as decimal strings. */
export function reportJson(report: LedgerReconcileReport) {
  const { changes } = report;
  return {
    chainId: report.chainId.toString(),
    registryAddress: report.registryAddress,
    blocks: report.blocks,
    lostEvents: report.lostEvents.map((event) => ({
      eventKey: event.eventKey,
      eventIndex: event.eventIndex.toString(),
      blockNumber: event.blockNumber,
      txHash: event.txHash,
    })),
    lostTickets: report.lostTickets.map((ticket) => ({
      eventKey: ticket.eventKey,
      tokenId: ticket.tokenId.toString(),
      ticketHash: ticket.ticketHash,
      blockNumber: ticket.blockNumber,
      txHash: ticket.txHash,
    })),
    lostActions: report.lostActions.map((item) => ({
      action: item.action,
      subject: item.subject.toString(),
      blockNumber: item.blockNumber,
      txHash: item.txHash,
      failure: item.failure === null ? null : chainFailureCode(item.failure),
    })),
    changes: {
      eventIndexes: changes.eventIndexes && { from: changes.eventIndexes.from.toString(), to: changes.eventIndexes.to.toString() },
      serials: changes.serials.map((move) => ({ eventIndex: move.eventIndex.toString(), from: move.from.toString(), to: move.to.toString() })),
      signers: changes.signers,
      appliedActions: changes.appliedActions,
    },
  };
}

function printSummary(report: LedgerReconcileReport, file: string): void {
  const { changes } = report;
  print(`Read the registry ${report.registryAddress} (chain ${report.chainId}), blocks ${report.blocks.from} to ${report.blocks.to}.`);
  print(
    changes.eventIndexes
      ? `Event indexes: the next new event takes ${changes.eventIndexes.to + 1n} (was ${changes.eventIndexes.from + 1n}).`
      : "Event indexes: already past the chain's.",
  );
  print(
    changes.serials.length > 0
      ? `Serials: moved past the chain's for ${changes.serials.length} event${changes.serials.length === 1 ? "" : "s"} (${changes.serials
          .map((move) => `index ${move.eventIndex}: ${move.from} → ${move.to}`)
          .join(", ")}).`
      : "Serials: already past the chain's.",
  );
  for (const signer of changes.signers) {
    if (!signer.resumed) {
      print(`Signer ${signer.signer}: never wrote to this ledger.`);
      continue;
    }
    print(
      `Signer ${signer.signer}: next nonce ${signer.ledgerNonce} → ${signer.nextNonce} (the chain counts ${signer.chainNonce}); ` +
        `${signer.markedMined.length} of the ledger's transactions found mined, ${signer.givenUp.length} nonce(s) given up, ${signer.requeuedActions} action(s) wait again.`,
    );
  }
  if (changes.appliedActions.length > 0)
    print(`${changes.appliedActions.length} waiting actions were already carried by batches on chain: closed as the chain applied them (and called back).`);
  print(
    `On chain and unknown to the ledger: ${report.lostEvents.length} event${report.lostEvents.length === 1 ? "" : "s"}, ` +
      `${report.lostTickets.length} ticket${report.lostTickets.length === 1 ? "" : "s"} (report: ${file}).`,
  );
  const others = report.lostActions.filter((item) => KIND_OF_BATCH_ITEM[item.action] !== "sold" && item.action !== "registerEvent");
  if (others.length > 0) print(`Other items of the lost part's batches on chain (check-ins, resales, claims, updates): ${others.length} (in the report).`);
  for (const event of report.lostEvents.slice(0, SHOWN))
    print(`  event  ${event.eventKey}  index ${event.eventIndex}  block ${event.blockNumber}  tx ${event.txHash}`);
  for (const ticket of report.lostTickets.slice(0, SHOWN)) print(`  ticket ${ticketLine(ticket)}`);
  const hidden = Math.max(0, report.lostEvents.length - SHOWN) + Math.max(0, report.lostTickets.length - SHOWN);
  if (hidden > 0) print(`  … and ${hidden} more in the report.`);
}

function ticketLine(ticket: LostTicket): string {
  return `${ticket.tokenId}  hash ${ticket.ticketHash}  event ${ticket.eventKey ?? "-"}  block ${ticket.blockNumber}  tx ${ticket.txHash}`;
}

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { GasFigures, ReferenceGas, TicketAction } from "../scripts/lib/gas-figures";
import { runHardhat } from "../scripts/stack/hardhat";
import { type Figure, ratioOf } from "./figures";

/** The gas goals per ticket at a batch of 100 we aim for. */
export const GAS_GOALS: Partial<Record<TicketAction, number>> = { sold: 7_000, scanned: 1_500, invalidated: 1_500, claimed: 50_000 };

/** Each action's limit: the cheapest comparable reference contract figure, and what it is. */
function limitOf(action: TicketAction, reference: ReferenceGas): { limit: number; limitName: string } | undefined {
  switch (action) {
    case "sold":
      return {
        limit: reference.erc721aSoldToCustody,
        limitName: "ERC721A minting the batch to one custody holder with the same TicketSold log (contracts/bench)",
      };
    case "scanned":
      return { limit: reference.bitmapScanned, limitName: "one OpenZeppelin BitMap bit and one log per ticket (contracts/bench)" };
    case "invalidated":
      return { limit: reference.bitmapInvalidated, limitName: "one OpenZeppelin BitMap bit and one log per ticket (contracts/bench)" };
    case "claimed":
      return reference.ozClaimed <= reference.erc721aClaimed
        ? { limit: reference.ozClaimed, limitName: "OpenZeppelin ERC721 transferFrom custody to a new wallet (contracts/bench)" }
        : { limit: reference.erc721aClaimed, limitName: "ERC721A transferFrom custody to a new wallet (contracts/bench)" };
    default:
      return undefined;
  }
}

/**
 * Runs contracts/scripts/gas-figures.ts in the contract workspace (Hardhat 3 is ESM and loads only there)
 * and reads the figures it writes.
 */
async function measureInWorkspace(): Promise<GasFigures> {
  const dir = mkdtempSync(join(tmpdir(), "gas-figures-"));
  const file = join(dir, "gas-figures.json");
  try {
    await runHardhat(["run", "scripts/gas-figures.ts"], { env: { ...process.env, GAS_FIGURES_FILE: file } });
    return JSON.parse(readFileSync(file, "utf8")) as GasFigures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Gas per ticket of every action at a batch of 100, of registering an event and of cancelling one, measured as
 * `npm run gas` measures them (on Hardhat's in-process network) without rewriting gas-snapshot.json;
 * beside them, in the same Hardhat run, the reference contracts of contracts/src/bench (OpenZeppelin's
 * ERC721 and ERC721A with the same sale record) as limits, and our goals.
 */
export async function measureGasFigures(): Promise<Figure[]> {
  const { actions, targets, snapshot, reference } = await measureInWorkspace();
  const perTicket = actions.map((action): Figure => {
    const value = snapshot[action]["100"];
    const limit = limitOf(action, reference);
    const goal = GAS_GOALS[action];
    return {
      name: `Gas per ticket, ${action}, batch of 100`,
      value,
      unit: "gas/ticket",
      target: targets[action],
      better: "lower",
      ...(limit ? { ...limit, ratio: ratioOf(value, limit.limit) } : {}),
      ...(goal ? { goal } : {}),
    };
  });
  const registerEvent: Figure = {
    name: "Gas to register an event (all fields, 255-character strings)",
    value: snapshot.registerEvent,
    unit: "gas",
    target: targets.registerEvent,
    better: "lower",
  };
  const cancelEvent: Figure = {
    name: "Gas to cancel an event with 5,000 tickets sold (the whole transaction; the same with 1)",
    value: snapshot.cancelEvent["5000"],
    unit: "gas",
    target: targets.cancelEvent,
    better: "lower",
  };
  const figures = [...perTicket, registerEvent, cancelEvent];
  console.table(
    figures.map(({ name, value, target, goal, limit, ratio }) => ({
      figure: name,
      gas: value,
      target,
      goal: goal ?? "",
      "ours / goal": goal ? ratioOf(value, goal) : "",
      limit: limit ?? "",
      "ours / limit": ratio ?? "",
    })),
  );
  console.log("Reference contracts (contracts/src/bench/ReferenceTickets.sol), gas per ticket at a batch of 100, beside ours:");
  const rows: [string, number, TicketAction][] = [
    ["OpenZeppelin ERC721, sold to distinct holders", reference.ozSoldToHolders, "sold"],
    ["OpenZeppelin ERC721, sold to custody", reference.ozSoldToCustody, "sold"],
    ["ERC721A, sold to distinct holders", reference.erc721aSoldToHolders, "sold"],
    ["ERC721A, the batch sold to custody in one mint", reference.erc721aSoldToCustody, "sold"],
    ["BitMap bit + log per ticket, scanned", reference.bitmapScanned, "scanned"],
    ["BitMap bit + log per ticket, invalidated", reference.bitmapInvalidated, "invalidated"],
    ["OpenZeppelin ERC721, claimed from custody to a new wallet", reference.ozClaimed, "claimed"],
    ["ERC721A, claimed from custody to a new wallet", reference.erc721aClaimed, "claimed"],
  ];
  console.table(
    rows.map(([name, gas, action]) => ({
      reference: name,
      gas,
      ours: `${action} ${snapshot[action]["100"]}`,
      "ours / it": ratioOf(snapshot[action]["100"], gas),
    })),
  );
  return figures;
}

import { GAS_TARGETS, measureGas, TICKET_ACTIONS } from "../scripts/gas/measure-gas";
import type { Figure } from "./figures";

/**
 * Gas per ticket of every action at a batch of 100, and of registering an event, measured as
 * `npm run gas` measures them (on Hardhat's in-process network) without rewriting gas-snapshot.json.
 */
export async function measureGasFigures(): Promise<Figure[]> {
  // Loaded only here: importing Hardhat builds its runtime from hardhat.config.ts.
  const { default: hre } = await import("hardhat");
  const snapshot = await measureGas(hre);
  const perTicket = TICKET_ACTIONS.map((action): Figure => ({
    name: `Gas per ticket, ${action}, batch of 100`,
    value: snapshot[action]["100"],
    unit: "gas/ticket",
    target: GAS_TARGETS[action],
    better: "lower",
  }));
  const registerEvent: Figure = {
    name: "Gas to register an event (all fields, 255-character strings)",
    value: snapshot.registerEvent,
    unit: "gas",
    target: GAS_TARGETS.registerEvent,
    better: "lower",
  };
  const figures = [...perTicket, registerEvent];
  console.table(figures.map(({ name, value, target }) => ({ figure: name, gas: value, target })));
  return figures;
}

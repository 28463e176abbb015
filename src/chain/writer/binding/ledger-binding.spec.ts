import { Logger } from "@nestjs/common";
import type { JsonRpcProvider } from "ethers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { TicketRegistry__factory } from "../../../../typechain-types";
import type { AppConfig } from "../../../config/app-config";
import type { ChainClient } from "../../chain-client";
import { LedgerBinding } from "./ledger-binding";
import type { LedgerBindingStore, RegistryTarget } from "./ledger-binding.store";

const REGISTRY = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const OTHER = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const registry = TicketRegistry__factory.createInterface();

function binding(bound: RegistryTarget | null) {
  const store = {
    bound: vi.fn(async () => bound),
    bind: vi.fn(async (target: RegistryTarget) => target),
    hasWritten: vi.fn(async () => false),
    firstEventIndex: vi.fn(async () => 1n),
  };
  const chain = { chainId: async () => 31337n, registryAddress: REGISTRY, registry } as unknown as ChainClient;
  const config = { chain: { fromBlock: 0 } } as AppConfig;
  const gauge = { set: vi.fn() };
  const subject = new LedgerBinding(chain, store as unknown as LedgerBindingStore, config, gauge as never);
  return { subject, store, gauge };
}

/** A node whose registry knows no event: eventRecord reverts TicketRegistryEventUnknown. */
const emptyRegistry = {
  call: vi.fn(async () => {
    throw Object.assign(new Error("execution reverted"), {
      code: "CALL_EXCEPTION",
      data: registry.encodeErrorResult("TicketRegistryEventUnknown", [1n]),
    });
  }),
} as unknown as JsonRpcProvider;
const takenRegistry = { call: vi.fn(async () => "0x") } as unknown as JsonRpcProvider;

beforeEach(() => {
  vi.spyOn(Logger.prototype, "error").mockImplementation(() => undefined);
  vi.spyOn(Logger.prototype, "log").mockImplementation(() => undefined);
});

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("LedgerBinding", () => {
  it("binds a fresh ledger to the configured registry when the registry does not hold its first event index, then asks nothing more", async () => {
    const { subject, store, gauge } = binding(null);
    for (let i = 0; i < 5; i++) expect(await subject.allowsWriting(emptyRegistry)).toBe(true);
    expect(store.bind).toHaveBeenCalledWith({ chainId: 31337n, registryAddress: REGISTRY, fromBlock: 0n });
    expect(store.bound).toHaveBeenCalledTimes(1);
    expect(gauge.set).toHaveBeenLastCalledWith(0);
  });

  it("refuses another registry than the ledger's, logs it once, and reads again only after a while", async () => {
    vi.useFakeTimers();
    const { subject, store, gauge } = binding({ chainId: 31337n, registryAddress: OTHER, fromBlock: 0n });
    const error = vi.spyOn(Logger.prototype, "error");
    for (let i = 0; i < 5; i++) expect(await subject.allowsWriting(emptyRegistry)).toBe(false);
    expect(store.bound).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(10_000);
    expect(await subject.allowsWriting(emptyRegistry)).toBe(false);
    expect(store.bound).toHaveBeenCalledTimes(2);
    expect(error).toHaveBeenCalledTimes(1);
    expect(gauge.set).toHaveBeenLastCalledWith(1);
    const verdict = subject.verdict;
    expect(verdict?.allowed === false && verdict.reason).toContain(OTHER);
  });

  it("does not bind a fresh ledger to a registry that holds its first event index, and says to reconcile", async () => {
    const { subject, store } = binding(null);
    expect(await subject.allowsWriting(takenRegistry)).toBe(false);
    expect(store.bind).not.toHaveBeenCalled();
    const verdict = subject.verdict;
    expect(verdict?.allowed === false && verdict.reason).toContain("npm run cli -- ledger reconcile");
  });

  it("binds a ledger that wrote before bindings were recorded without asking the chain", async () => {
    const { subject, store } = binding(null);
    store.hasWritten.mockResolvedValue(true);
    expect(await subject.allowsWriting(takenRegistry)).toBe(true);
    expect(store.bind).toHaveBeenCalled();
  });
});

import { Injectable, Logger } from "@nestjs/common";
import { InjectMetric } from "@willsoto/nestjs-prometheus";
import { getAddress, isCallException, type JsonRpcProvider } from "ethers";
import type { Gauge } from "prom-client";

import type { AppConfig } from "../../../config/app-config";
import { InjectConfig } from "../../../config/config.module";
import { METRICS } from "../../../metrics/metric-definitions";
import { ChainClient } from "../../chain-client";
import { LedgerBindingStore, type RegistryTarget } from "./ledger-binding.store";

/** How long a refusal stands before the ledger and the chain are read again (a reconcile may have run). */
const RECHECK_MS = 5_000;

/** What the binding decided: writing allowed, or refused with what each side says. */
export type BindingVerdict =
  { allowed: true; bound: RegistryTarget } | { allowed: false; ledger: RegistryTarget | null; configured: RegistryTarget; reason: string; since: Date };

/**
 * A ledger is bound to one registry: the first time a worker asks, before anything is written, it
 * records the chain id, registry address and deployment block it writes to, and from then on a worker configured with another one writes
 * nothing (the actions wait in the ledger). A fresh ledger is not bound to a registry that already
 * holds the event index it would write first: its events and tokens would collide with another
 * ledger's. Everything that signs or sends asks here first; a binding that holds is cached for the
 * process's life, a refusal is read again every few seconds.
 */
@Injectable()
export class LedgerBinding {
  private readonly logger = new Logger(LedgerBinding.name);
  private current: BindingVerdict | null = null;
  private checkedAt = 0;

  constructor(
    private readonly chain: ChainClient,
    private readonly store: LedgerBindingStore,
    @InjectConfig() private readonly config: AppConfig,
    @InjectMetric(METRICS.ledgerRegistryMismatch.name) private readonly mismatchGauge: Gauge<string>,
  ) {}

  /** The latest verdict; null before the first write was asked for. */
  get verdict(): BindingVerdict | null {
    return this.current;
  }

  /** Whether the writer may sign and send to the configured registry now. */
  async allowsWriting(provider: JsonRpcProvider): Promise<boolean> {
    if (this.current?.allowed) return true;
    if (this.current && Date.now() - this.checkedAt < RECHECK_MS) return false;
    this.record(await this.decide(provider));
    return (this.current as BindingVerdict).allowed;
  }

  private async decide(provider: JsonRpcProvider): Promise<BindingVerdict> {
    const configured: RegistryTarget = {
      chainId: await this.chain.chainId(),
      registryAddress: getAddress(this.chain.registryAddress),
      fromBlock: BigInt(this.config.chain.fromBlock),
    };
    const bound = await this.store.bound();
    if (bound) return sameTarget(bound, configured) ? { allowed: true, bound } : refusal(bound, configured, describeMismatch(bound, configured));
    // A ledger that wrote before bindings were recorded is bound to what it is configured with.
    if (!(await this.store.hasWritten())) {
      const first = await this.store.firstEventIndex();
      if (await this.eventRegistered(provider, first)) return refusal(null, configured, describeTaken(configured, first));
    }
    const holding = await this.store.bind(configured);
    if (!sameTarget(holding, configured)) return refusal(holding, configured, describeMismatch(holding, configured));
    this.logger.log(
      `the ledger is bound to registry ${holding.registryAddress} on chain ${holding.chainId} (deployed at block ${holding.fromBlock}): it writes to no other`,
    );
    return { allowed: true, bound: holding };
  }

  /** One eth_call: the registry answers eventRecord(index) for a registered event, reverts EventUnknown otherwise. */
  private async eventRegistered(provider: JsonRpcProvider, index: bigint): Promise<boolean> {
    const registry = this.chain.registry;
    try {
      await provider.call({ to: this.chain.registryAddress, data: registry.encodeFunctionData("eventRecord", [index]) });
      return true;
    } catch (error) {
      if (isCallException(error) && error.data && registry.parseError(error.data)?.name === "TicketRegistryEventUnknown") return false;
      throw error;
    }
  }

  /** Keeps the verdict; the metric follows it, the log says each change once. */
  private record(verdict: BindingVerdict): void {
    const before = this.current;
    this.checkedAt = Date.now();
    if (!verdict.allowed && before && !before.allowed && before.reason === verdict.reason) {
      this.current = { ...verdict, since: before.since };
      return;
    }
    this.current = verdict;
    this.mismatchGauge.set(verdict.allowed ? 0 : 1);
    if (!verdict.allowed) this.logger.error(`${verdict.reason}: the writer writes nothing; accepted actions wait in the ledger`);
  }
}

function refusal(ledger: RegistryTarget | null, configured: RegistryTarget, reason: string): BindingVerdict {
  return { allowed: false, ledger, configured, reason, since: new Date() };
}

function sameTarget(a: RegistryTarget, b: RegistryTarget): boolean {
  return a.chainId === b.chainId && a.registryAddress.toLowerCase() === b.registryAddress.toLowerCase() && a.fromBlock === b.fromBlock;
}

export function describeTarget(target: RegistryTarget): string {
  return `registry ${target.registryAddress} on chain ${target.chainId} (deployed at block ${target.fromBlock})`;
}

function describeMismatch(ledger: RegistryTarget, configured: RegistryTarget): string {
  return (
    `the ledger is bound to registry ${ledger.registryAddress} on chain ${ledger.chainId} (deployed at block ${ledger.fromBlock}), ` +
    `the configuration names ${describeTarget(configured)}: set CHAIN_RPC_URL(S), REGISTRY_ADDRESS and REGISTRY_FROM_BLOCK to the ledger's, or DATABASE_URL to the ledger of that registry`
  );
}

function describeTaken(configured: RegistryTarget, index: bigint): string {
  return (
    `this ledger has not written yet and ${describeTarget(configured)} already holds event index ${index}, written by another ledger: ` +
    `run \`npm run cli -- ledger reconcile\` if this ledger is a restored copy of that one, or deploy a new registry for this ledger`
  );
}

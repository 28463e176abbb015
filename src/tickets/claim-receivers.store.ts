import type { EntityManager } from "typeorm";

import type { ClaimReceiverFacts } from "./claim-receivers";

/**
 * Reads what a claim's receiver is checked against. The chain writer owns both tables (the ledger's
 * binding and its signers, both written before its first transaction is signed); acceptance only
 * reads them, so that an api process needs no chain connection to refuse a receiver.
 */
export class ClaimReceiversStore {
  constructor(private readonly manager: EntityManager) {}

  async load(): Promise<ClaimReceiverFacts> {
    const [binding] = await this.manager.query<{ chain_id: string; registry_address: string }[]>(`SELECT chain_id::text, registry_address FROM ledger_binding`);
    const signers = await this.manager.query<{ address: string }[]>(`SELECT address FROM chain_signers`);
    return {
      binding: binding ? { chainId: BigInt(binding.chain_id), registryAddress: binding.registry_address } : null,
      signers: signers.map((row) => row.address),
    };
  }
}

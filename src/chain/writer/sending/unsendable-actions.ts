import { Injectable, Logger } from "@nestjs/common";

import { ChainClient } from "../../chain-client";
import { logUnencodable } from "../transaction-log";
import { RegistrySubjectFacts } from "../restore/registry-subject-facts";
import { SendingStore, type UnencodableAction } from "./sending.store";

/**
 * Actions that can never be sent (the codec refuses them, or one alone exceeds what a transaction
 * may carry) fail at once, with their callbacks, instead of blocking their signer: the rest go on.
 */
@Injectable()
export class UnsendableActions {
  private readonly logger = new Logger(UnsendableActions.name);

  constructor(
    private readonly store: SendingStore,
    private readonly chain: ChainClient,
    private readonly subjectFacts: RegistrySubjectFacts,
  ) {}

  async fail(refused: readonly UnencodableAction[]): Promise<void> {
    if (refused.length === 0) return;
    // Nothing of these actions reached the chain: what it holds now, with the ledger's actions still on their way.
    const failed = await this.store.failUnencodable(refused, await this.chain.chainId(), this.chain.registryAddress, this.subjectFacts.at("latest"));
    logUnencodable(this.logger, failed, refused);
  }
}

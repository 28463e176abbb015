import { Injectable } from "@nestjs/common";
import { getAddress, ZeroAddress } from "ethers";

import { TicketRegistry__factory } from "../../../../typechain-types";
import { ChainClient } from "../../chain-client";
import type { FailedSubjects, SubjectFacts, SubjectFactsReader } from "./subject-facts";

/** Tokens per `tickets` call: a few hundred views stay far below any node's call gas limit. */
const TOKENS_PER_CALL = 500;

/**
 * The registry's facts of the subjects of failed actions, read with its views as of one block: the
 * block that carried the refusal, so that nothing the ledger still has on its way counts twice.
 */
@Injectable()
export class RegistrySubjectFacts {
  constructor(private readonly chain: ChainClient) {}

  /** A reader of the facts as of `blockTag` (a block number, or "latest" for actions that never reached the chain). */
  at(blockTag: number | "latest"): SubjectFactsReader {
    return (subjects) => this.read(subjects, blockTag);
  }

  private async read(subjects: FailedSubjects, blockTag: number | "latest"): Promise<SubjectFacts> {
    const registry = TicketRegistry__factory.connect(this.chain.registryAddress, await this.chain.connect());
    const facts: SubjectFacts = { tickets: new Map() };
    for (let start = 0; start < subjects.tokenIds.length; start += TOKENS_PER_CALL) {
      const tokenIds = subjects.tokenIds.slice(start, start + TOKENS_PER_CALL);
      const views = await registry.tickets(tokenIds, { blockTag });
      views.forEach((view, i) => {
        const holder = getAddress(view.holder);
        const minted = holder !== ZeroAddress;
        facts.tickets.set(tokenIds[i], {
          minted,
          checkedIn: view.checkedIn,
          invalidated: view.invalidated,
          claimed: view.claimed,
          holder: minted ? holder : null,
        });
      });
    }
    return facts;
  }
}

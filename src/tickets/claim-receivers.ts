import { custodyMaskOf, inCustodialSpace } from "../registry";

/** What the ledger knows of the chain it writes to: the registry it is bound to, and the accounts that sign for it. */
export interface ClaimReceiverFacts {
  /** Null before the worker's first write bound the ledger to a registry. */
  binding: { chainId: bigint; registryAddress: string } | null;
  signers: readonly string[];
}

/** The well-known burn address: a ticket claimed to it is gone for good. */
const BURN_ADDRESS = 0xdeadn;
/** Addresses 0x…01 to 0x…ff: precompiled contracts (Ethereum's and the rollups'), which can never move a token on. */
const LAST_PRECOMPILE = 0xffn;

/**
 * The addresses a claim may not go to, with why: those the registry refuses as receivers (its own
 * address and its custodial address space, CustodialERC721._isWallet) and those it would accept
 * but where nobody could ever hold the ticket (precompiles, the burn address, the service's own
 * signers). Refused at acceptance, so that the ledger never claims what the chain will refuse.
 */
export class ClaimReceivers {
  private readonly custodyMask: bigint | null;
  private readonly registry: bigint | null;
  private readonly signers: ReadonlySet<bigint>;

  constructor(facts: ClaimReceiverFacts) {
    this.custodyMask = facts.binding ? custodyMaskOf(facts.binding.chainId, facts.binding.registryAddress) : null;
    this.registry = facts.binding ? BigInt(facts.binding.registryAddress) : null;
    this.signers = new Set(facts.signers.map((signer) => BigInt(signer)));
  }

  /** Why `to` (a valid address) cannot receive a claimed ticket, or null when it can. */
  refusalOf(to: string): string | null {
    const address = BigInt(to);
    if (address <= LAST_PRECOMPILE) return "is a precompiled contract's address (0x…01 to 0x…ff): no wallet can hold a ticket there";
    if (address === BURN_ADDRESS) return "is the burn address 0x…dEaD: a ticket claimed there is lost";
    if (address === this.registry) return "is the registry's own address, which cannot hold its tokens";
    if (this.custodyMask !== null && inCustodialSpace(this.custodyMask, to)) {
      return "is one of the registry's custodial addresses (keyless; they hold tickets until their claim): a claim goes to the holder's wallet";
    }
    if (this.signers.has(address)) return "is one of the service's signing accounts: a claim goes to the holder's wallet";
    return null;
  }
}

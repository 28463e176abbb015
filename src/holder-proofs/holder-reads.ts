import { Injectable } from "@nestjs/common";
import { Contract, getAddress, isError } from "ethers";

import { TicketRegistry__factory } from "../../typechain-types";
import { ChainClient } from "../chain/chain-client";
import { confirmedThrough } from "../chain/confirmed-block";
import type { AppConfig } from "../config/app-config";
import { InjectConfig } from "../config/config.module";

/** ERC-1271's answer for a valid signature: isValidSignature's own selector. */
export const ERC1271_MAGIC_VALUE = "0x1626ba7e";

const ERC1271_ABI = ["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"];

/**
 * What a proof needs of the chain: who holds tokens at the confirmed block (the depth the service
 * counts an action confirmed at, CONFIRMATIONS), whether an address is a contract, and a contract
 * wallet's ERC-1271 answer. Each is one call to the node; a failure to reach it is thrown, for a 503.
 */
@Injectable()
export class HolderReads {
  constructor(
    private readonly chain: ChainClient,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  get configured(): boolean {
    return this.chain.configured;
  }

  /** The chain id and the registry the service writes to: what a challenge's domain states. */
  async whereProofsPoint(): Promise<{ chainId: bigint; registryAddress: string }> {
    return { chainId: await this.chain.chainId(), registryAddress: getAddress(this.chain.registryAddress) };
  }

  async confirmedBlock(): Promise<number> {
    return confirmedThrough(await this.chain.connect(), this.config.chain.confirmations);
  }

  /** ownerOf at `blockNumber`; null for a token not minted by then (ownerOf reverts). */
  async ownerOf(tokenId: bigint, blockNumber: number): Promise<string | null> {
    const registry = TicketRegistry__factory.connect(this.chain.registryAddress, await this.chain.connect());
    try {
      return getAddress(await registry.ownerOf(tokenId, { blockTag: blockNumber }));
    } catch (error) {
      if (isError(error, "CALL_EXCEPTION")) return null;
      throw error;
    }
  }

  /** The holders of many tokens at `blockNumber`, in one tickets() call; the zero address for one never minted. */
  async holdersOf(tokenIds: readonly bigint[], blockNumber: number): Promise<string[]> {
    if (tokenIds.length === 0) return [];
    const registry = TicketRegistry__factory.connect(this.chain.registryAddress, await this.chain.connect());
    const views = await registry.tickets([...tokenIds], { blockTag: blockNumber });
    return views.map((view) => getAddress(view.holder));
  }

  async isContract(address: string): Promise<boolean> {
    return (await (await this.chain.connect()).getCode(address)) !== "0x";
  }

  /** Whether the contract wallet at `wallet` answers ERC-1271's magic value for this digest and signature; a revert is a no. */
  async acceptsSignature(wallet: string, digest: string, signature: string): Promise<boolean> {
    const contract = new Contract(wallet, ERC1271_ABI, await this.chain.connect());
    try {
      const answer = (await contract.getFunction("isValidSignature").staticCall(digest, signature)) as string;
      return answer.toLowerCase() === ERC1271_MAGIC_VALUE;
    } catch (error) {
      if (isError(error, "CALL_EXCEPTION") || isError(error, "BAD_DATA")) return false;
      throw error;
    }
  }
}

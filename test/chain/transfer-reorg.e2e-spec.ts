import { Contract, type ContractTransactionResponse, parseEther, Wallet } from "ethers";
import { beforeAll, describe, expect, it } from "vitest";

import { stream } from "../support/callbacks-e2e";
import { actionRows, FINAL_STATUSES, sqlOf, tokenIds, uid } from "../support/chain-e2e";

import { ANVIL_CHAIN, eventually, HARDHAT_KEYS, pauseMining } from "../support/test-chain";
import { useChainApp } from "../support/chain-app";

/**
 * A holder's transfer mined in a block that a reorg removes before CONFIRMATIONS (3) is never called
 * back, and the ticket's holder stays who it was; a transfer that reaches the depth is called back once.
 * On Anvil with blocks only on request: evm_snapshot before the transfer, evm_revert after its block.
 */

const CONFIRMATIONS = 3;

let holder: Wallet;
let erc721: Contract;

const chainApp = useChainApp({
  node: ANVIL_CHAIN,
  receiver: true,
  env: async (chain) => {
    await pauseMining(chain);
    return { CONFIRMATIONS: String(CONFIRMATIONS), TRANSFER_POLL_MS: "100" };
  },
});

beforeAll(async () => {
  holder = new Wallet(Wallet.createRandom().privateKey, chainApp.chain.provider);
  const funding = await new Wallet(HARDHAT_KEYS[3], chainApp.chain.provider).sendTransaction({ to: holder.address, value: parseEther("1") });
  await chainApp.chain.send("evm_mine");
  await funding.wait();
  erc721 = new Contract(
    chainApp.chain.registryAddress,
    ["function safeTransferFrom(address from, address to, uint256 tokenId)", "function ownerOf(uint256) view returns (address)"],
    holder,
  );
});

/** Mines a block every 100 ms until the actions are final in the ledger. */
async function mineUntilFinal(promises: string[]): Promise<void> {
  await eventually(
    async () => {
      if ((await actionRows(chainApp.testApp, promises)).every((row) => FINAL_STATUSES.includes(row.status))) return true;
      await chainApp.chain.send("evm_mine");
      await new Promise((resolve) => setTimeout(resolve, 100));
      return undefined;
    },
    60_000,
    `${promises.length} actions to be final`,
  );
}

const transferredRows = (ticketId: string) =>
  sqlOf(chainApp.testApp)<{ id: string; tx_hash: string }>(
    `SELECT a.id, a.tx_hash FROM chain_actions a JOIN tickets t ON t.id = a.ticket_ref WHERE t.ticket_id = $1 AND a.kind = 'transferred' ORDER BY a.seq`,
    [ticketId],
  );
const transferCallbacks = () => chainApp.receiver.requests("/callbacks").filter((request) => JSON.parse(request.body).action === "transferred");
const followedThrough = async () =>
  Number((await sqlOf(chainApp.testApp)<{ next_block: string }>(`SELECT next_block FROM registry_log_cursors`))[0]?.next_block ?? 0) - 1;

describe("a reorg before the confirmation depth", () => {
  it("drops a transfer whose block it removed: no callback, the holder goes back; a transfer at depth is called back once", async () => {
    const eventId = uid("event");
    const ticketId = uid("ticket");
    const promises = await stream(chainApp.api, [
      { action: "newEvent", data: { eventId, eventName: "Reorg night", currency: "EUR", callbackUrl: chainApp.receiver.url("/callbacks") } },
      { action: "soldTicket", data: { eventId, ticketId, price: "20" } },
      { action: "scannedTicket", data: { ticketId } },
      { action: "claimedTicket", data: { ticketId, to: holder.address } },
    ]);
    await mineUntilFinal(promises);
    expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
    const tokenId = (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!;
    await eventually(
      async () => ((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body.holder === holder.address ? true : undefined),
      20_000,
      "the claim's holder",
    );

    // The transfer is mined, one block deep: not confirmed.
    const snapshot = await chainApp.chain.send("evm_snapshot");
    const headBefore = await chainApp.chain.provider.getBlockNumber();
    const dropped = (await erc721.safeTransferFrom(holder.address, Wallet.createRandom().address, tokenId)) as ContractTransactionResponse;
    await chainApp.chain.send("evm_mine");
    expect((await dropped.wait())?.blockNumber).toBe(headBefore + 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await transferredRows(ticketId)).toEqual([]);

    // The reorg: the block and the transfer are gone; later blocks bury the height far past the depth.
    expect(await chainApp.chain.send("evm_revert", [snapshot])).toBe(true);
    expect(await chainApp.chain.provider.getTransactionReceipt(dropped.hash)).toBeNull();
    await chainApp.chain.send("evm_setNextBlockTimestamp", [Math.floor(Date.now() / 1000) + 60]);
    for (let block = 0; block < CONFIRMATIONS + 2; block++) await chainApp.chain.send("evm_mine");
    const head = await chainApp.chain.provider.getBlockNumber();
    await eventually(async () => ((await followedThrough()) >= head - CONFIRMATIONS + 1 ? true : undefined), 20_000, "the follower to pass the reorged height");
    expect(await erc721.ownerOf(tokenId)).toBe(holder.address);
    expect(await transferredRows(ticketId)).toEqual([]);
    expect(transferCallbacks()).toEqual([]);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body.holder).toBe(holder.address);

    // A transfer that stays on the chain is called back once it is CONFIRMATIONS deep.
    const receiverWallet = Wallet.createRandom().address;
    const kept = (await erc721.safeTransferFrom(holder.address, receiverWallet, tokenId)) as ContractTransactionResponse;
    for (let block = 0; block < CONFIRMATIONS; block++) await chainApp.chain.send("evm_mine");
    const receipt = await kept.wait();
    await eventually(async () => (transferCallbacks().length > 0 ? true : undefined), 20_000, "the kept transfer's callback");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(transferCallbacks().map((request) => JSON.parse(request.body))).toEqual([
      expect.objectContaining({ action: "transferred", ticketId, from: holder.address, to: receiverWallet, txHash: kept.hash, blockHash: receipt!.blockHash }),
    ]);
    expect((await transferredRows(ticketId)).map((row) => row.tx_hash)).toEqual([kept.hash]);
    expect((await chainApp.api.get(`/api/v1/tickets/${ticketId}`)).body.holder).toBe(receiverWallet);
  });
});

import { Contract, parseEther, Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { actionPromises, actionRows, CALLBACK_URL, FINAL_STATUSES, tokenIds, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";
import { eventually, HARDHAT_KEYS, onAnvil, pauseMining, resumeMining } from "../support/test-chain";

/**
 * Holding is read at the confirmed block (CONFIRMATIONS=3: two blocks on top of the one that moved
 * the token), never at the head: a token that just reached a wallet proves nothing there until its
 * move is that deep, and proves for the wallet it left until then. Blocks come only when the test
 * mines them.
 */

const chainApp = useChainApp({ node: "own", env: { CONFIRMATIONS: "3", TRANSFER_POLL_MS: "100" } });

let sender: Wallet;
let receiver: Wallet;
let tokenId: bigint;

/** Mines an empty block every 50 ms until `promises` are final in the ledger. */
async function mineUntilFinal(promises: string[]): Promise<void> {
  await eventually(async () => {
    const rows = await actionRows(chainApp.testApp, promises);
    if (rows.every((row) => FINAL_STATUSES.includes(row.status))) return true;
    await chainApp.chain.send("evm_mine");
    await new Promise((resolve) => setTimeout(resolve, 50));
    return undefined;
  });
}

async function proof(wallet: Wallet) {
  const typedData = (await chainApp.api.post("/api/v1/holder-proofs/challenge", { tokenId: tokenId.toString() })).body;
  const { EIP712Domain: _domainType, ...types } = typedData.types;
  const signature = await wallet.signTypedData(typedData.domain, types, typedData.message);
  return (await chainApp.api.post("/api/v1/holder-proofs/verify", { message: typedData, signature })).body;
}

beforeAll(async () => {
  const { provider } = chainApp.chain;
  [sender, receiver] = [0, 1].map(() => new Wallet(Wallet.createRandom().privateKey, provider));
  const funding = await new Wallet(HARDHAT_KEYS[3], provider).sendTransaction({ to: sender.address, value: parseEther("1") });
  await funding.wait();
  if (onAnvil()) await pauseMining(chainApp.chain);
  const created = (
    await chainApp.api.post("/api/v1/events", { eventId: uid("event"), ticketeerId: chainApp.ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL })
  ).body;
  await mineUntilFinal([created.txPromise]);
  const ticketId = uid("t");
  const promises = actionPromises(
    await chainApp.api.post("/stream", [
      { action: "soldTicket", data: { eventId: created.eventId, ticketId, price: "10" } },
      { action: "scannedTicket", data: { ticketId } },
      { action: "claimedTicket", data: { ticketId, to: sender.address } },
    ]),
  );
  await mineUntilFinal(promises);
  expect((await actionRows(chainApp.testApp, promises)).map((row) => row.status)).toEqual(["confirmed", "confirmed", "confirmed"]);
  tokenId = (await tokenIds(chainApp.testApp, [ticketId])).get(ticketId)!;
});

afterAll(async () => {
  await resumeMining(chainApp.chain);
});

describe("a token moved between wallets", () => {
  it("proves for the wallet it left, not the one it reached, until the move is CONFIRMATIONS deep; then the other way round", async () => {
    const registry = new Contract(chainApp.chain.registryAddress, ["function transferFrom(address from, address to, uint256 tokenId)"], sender);
    const sent = await registry.transferFrom(sender.address, receiver.address, tokenId);
    if (onAnvil()) await chainApp.chain.send("evm_mine");
    await sent.wait();

    expect(await proof(receiver)).toMatchObject({ valid: false, reason: "not_holder" });
    expect(await proof(sender)).toMatchObject({ valid: true, holder: sender.address });

    for (let block = 0; block < 2; block++) await chainApp.chain.send("evm_mine");
    expect(await proof(receiver)).toMatchObject({ valid: true, holder: receiver.address });
    expect(await proof(sender)).toMatchObject({ valid: false, reason: "not_holder" });
  });
});

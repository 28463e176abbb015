import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { Contract, ContractFactory, parseEther, type TransactionResponse, Wallet } from "ethers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";

import { actionPromises, allSettled, registeredEvent, sqlOf, tokenIds, uid } from "../support/chain-e2e";
import { useChainApp } from "../support/chain-app";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy";
import { eventually, HARDHAT_KEYS } from "../support/test-chain";
import { TestClock } from "../support/test-clock";

/**
 * Holder proofs against a real chain: tickets claimed to wallets whose keys the test holds (and to a
 * contract wallet), the typed data the service issues signed as wallets sign it, and the verdicts.
 */

const clock = new TestClock();
/** The app reaches the node through a proxy the test can close; the test itself reaches it directly. */
let proxy: TcpProxy;
const chainApp = useChainApp({
  app: () => ({ clock }),
  env: async (chain, defer) => {
    proxy = await startTcpProxy(Number(new URL(chain.url).port));
    defer(() => proxy.close());
    return { CHAIN_RPC_URL: proxy.url, TRANSFER_POLL_MS: "100" };
  },
});

afterEach(async () => {
  // A failed test must not leave the node unreachable for the next one.
  await proxy.open();
});

const ERC1271_WALLET = JSON.parse(
  readFileSync(resolve(__dirname, "../../contracts/artifacts/src/mocks/ERC1271WalletMock.sol/ERC1271WalletMock.json"), "utf8"),
) as { abi: object[]; bytecode: string };
const ERC721_ABI = ["function transferFrom(address from, address to, uint256 tokenId)", "function ownerOf(uint256 tokenId) view returns (address)"];

let eventId: string;
let fan: Wallet;
let mover: Wallet;
let tickets: { fan: bigint; mover: bigint; contractWallet: bigint; devAccount: bigint };
let contractWallet: Contract;
let walletOwner: Wallet;

/** Challenge → the typed data (or the whole failing answer). */
async function challenge(body: Record<string, unknown>) {
  const answer = await chainApp.api.post("/api/v1/holder-proofs/challenge", body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as { types: Record<string, any>; primaryType: string; domain: Record<string, any>; message: Record<string, any>; expiresAt: string };
}

/** ethers' signTypedData takes the types without EIP712Domain, which it derives itself. */
async function signed(wallet: Wallet, typedData: Awaited<ReturnType<typeof challenge>>) {
  const { EIP712Domain: _domainType, ...types } = typedData.types;
  return wallet.signTypedData(typedData.domain, types, typedData.message);
}

async function verify(message: unknown, signature: string, holder?: string) {
  const answer = await chainApp.api.post("/api/v1/holder-proofs/verify", { message, signature, ...(holder ? { holder } : {}) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
}

beforeAll(async () => {
  const { provider } = chainApp.chain;
  const funder = new Wallet(HARDHAT_KEYS[3], provider);
  [fan, mover, walletOwner] = [0, 1, 2].map(() => new Wallet(Wallet.createRandom().privateKey, provider));
  const sent: TransactionResponse[] = [];
  for (const wallet of [fan, mover, walletOwner]) sent.push(await funder.sendTransaction({ to: wallet.address, value: parseEther("1") }));
  await Promise.all(sent.map((tx) => tx.wait()));
  contractWallet = (await new ContractFactory(ERC1271_WALLET.abi, ERC1271_WALLET.bytecode, walletOwner).deploy(walletOwner.address)) as Contract;
  await contractWallet.waitForDeployment();

  eventId = await registeredEvent(chainApp.api, chainApp.ticketeerId);
  const receivers = { fan: fan.address, mover: mover.address, contractWallet: await contractWallet.getAddress(), devAccount: funder.address };
  const ticketIds = Object.fromEntries(Object.keys(receivers).map((name) => [name, uid("t")]));
  const actions = Object.entries(receivers).flatMap(([name, to]) => [
    { action: "soldTicket", data: { eventId, ticketId: ticketIds[name], price: "10" } },
    { action: "scannedTicket", data: { ticketId: ticketIds[name] } },
    { action: "claimedTicket", data: { ticketId: ticketIds[name], to } },
  ]);
  const statuses = await allSettled(chainApp.api, actionPromises(await chainApp.api.post("/stream", actions)));
  expect(statuses.map((status) => status.status).every((status) => status === "confirmed")).toBe(true);
  const ids = await tokenIds(chainApp.testApp, Object.values(ticketIds));
  tickets = Object.fromEntries(Object.keys(receivers).map((name) => [name, ids.get(ticketIds[name])!])) as typeof tickets;
});

describe("a token proof", () => {
  it("is valid once for the token's holder, and refused as replayed after", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    expect(typedData).toMatchObject({
      primaryType: "TokenHolderProof",
      domain: { chainId: chainApp.chain.chainId, verifyingContract: chainApp.chain.registryAddress },
      message: { tokenId: tickets.fan.toString() },
    });
    expect(typedData.message.expiry - Math.floor(clock.now().getTime() / 1000)).toBeLessThanOrEqual(120);
    const signature = await signed(fan, typedData);

    expect(await verify(typedData, signature)).toEqual({ valid: true, tokenId: tickets.fan.toString(), holder: fan.address, eventId });
    expect(await verify(typedData, signature)).toEqual({ valid: false, reason: "replayed", tokenId: tickets.fan.toString(), holder: fan.address, eventId });
  });

  it("signed by a wallet through eth_signTypedData_v4, the typed data passed as issued, is valid", async () => {
    const typedData = await challenge({ tokenId: tickets.devAccount.toString() });
    const holder = new Wallet(HARDHAT_KEYS[3]).address;
    const signature = (await chainApp.chain.send("eth_signTypedData_v4", [holder, JSON.stringify(typedData)])) as string;
    expect(await verify(typedData, signature)).toMatchObject({ valid: true, holder });
  });

  it("is refused when another wallet signs it", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    expect(await verify(typedData, await signed(mover, typedData))).toMatchObject({ valid: false, reason: "not_holder", holder: mover.address });
  });

  it("is refused as expired after its expiry, and leaves nothing to use", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    const signature = await signed(fan, typedData);
    clock.advanceSeconds(121);
    expect(await verify(typedData, signature)).toMatchObject({ valid: false, reason: "expired", holder: fan.address });
  });

  it("is refused for another chain, and for an expiry the fan moved", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    const otherChain = { ...typedData, domain: { ...typedData.domain, chainId: 1 } };
    expect(await verify(otherChain, await signed(fan, otherChain))).toMatchObject({ valid: false, reason: "wrong_chain" });
    const later = { ...typedData, message: { ...typedData.message, expiry: typedData.message.expiry + 60 } };
    expect(await verify(later, await signed(fan, later))).toMatchObject({ valid: false, reason: "not_issued" });
    // Refusals use nothing: the challenge as issued still proves.
    expect(await verify(typedData, await signed(fan, typedData))).toMatchObject({ valid: true });
  });

  it("is refused for a nonce never issued, and one issued to another organization", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    const madeUp = { ...typedData, message: { ...typedData.message, nonce: "0x" + "11".repeat(32) } };
    expect(await verify(madeUp, await signed(fan, madeUp))).toMatchObject({ valid: false, reason: "unknown_nonce", eventId: null });
    const other = await chainApp.testApp.client();
    const answer = await other.api.post("/api/v1/holder-proofs/verify", { message: typedData, signature: await signed(fan, typedData) });
    expect(answer.body).toMatchObject({ valid: false, reason: "unknown_nonce" });
    expect((await other.api.post("/api/v1/holder-proofs/challenge", { tokenId: tickets.fan.toString() })).status).toBe(404);
  });

  it("is refused for a signer that moved the token away once the move is confirmed", async () => {
    const typedData = await challenge({ tokenId: tickets.mover.toString() });
    const signature = await signed(mover, typedData);
    const receiver = Wallet.createRandom().address;
    const registry = new Contract(chainApp.chain.registryAddress, ERC721_ABI, mover);
    await (await registry.transferFrom(mover.address, receiver, tickets.mover)).wait();
    await eventually(async () => ((await registry.ownerOf(tickets.mover)) === receiver ? true : undefined));
    expect(await verify(typedData, signature)).toMatchObject({ valid: false, reason: "not_holder", holder: mover.address });
  });
});

describe("an event proof", () => {
  it("is valid for a holder of any of its tokens, naming the token found", async () => {
    const typedData = await challenge({ eventId });
    expect(typedData).toMatchObject({ primaryType: "EventHolderProof", message: { eventIndex: (tickets.fan >> 64n).toString() } });
    expect(await verify(typedData, await signed(fan, typedData))).toEqual({ valid: true, tokenId: tickets.fan.toString(), holder: fan.address, eventId });
  });

  it("is refused for a wallet that moved its only token of it away: whatever the ledger says yet, the chain decides", async () => {
    const typedData = await challenge({ eventId });
    expect(await verify(typedData, await signed(mover, typedData))).toMatchObject({ valid: false, reason: "not_holder", tokenId: null });
  });
});

describe("a contract wallet (ERC-1271)", () => {
  it("holding the token is accepted when its owner signed, the wallet named as holder", async () => {
    const holder = await contractWallet.getAddress();
    for (const body of [{ tokenId: tickets.contractWallet.toString() }, { eventId }]) {
      const typedData = await challenge(body);
      expect(await verify(typedData, await signed(walletOwner, typedData), holder)).toEqual({
        valid: true,
        tokenId: tickets.contractWallet.toString(),
        holder,
        eventId,
      });
    }
  });

  it("is refused when its owner did not sign, and an EOA named as holder by another signer too", async () => {
    const holder = await contractWallet.getAddress();
    const typedData = await challenge({ tokenId: tickets.contractWallet.toString() });
    expect(await verify(typedData, await signed(fan, typedData), holder)).toMatchObject({ valid: false, reason: "bad_signature", holder });
    expect(await verify(typedData, "0x" + "00".repeat(65), holder)).toMatchObject({ valid: false, reason: "bad_signature" });
    const fanToken = await challenge({ tokenId: tickets.fan.toString() });
    expect(await verify(fanToken, await signed(mover, fanToken), fan.address)).toMatchObject({ valid: false, reason: "bad_signature", holder: fan.address });
  });
});

describe("the chain unreachable", () => {
  it("answers a verify 503 with Retry-After and uses nothing: the proof holds once the chain is back", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    const signature = await signed(fan, typedData);
    await proxy.close();

    const answer = await chainApp.api.post("/api/v1/holder-proofs/verify", { message: typedData, signature });
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 503, body: { status: "error", error: { code: "service_unavailable" } } });
    expect(answer.headers.get("retry-after")).toBe("5");
    // A challenge needs no node call once the chain id is known: the registry's chain does not change.
    const during = await challenge({ tokenId: tickets.fan.toString() });

    await proxy.open();
    // The endpoint is tried again after a pause of its own; until then the answer stays 503.
    const back = await eventually(async () => {
      const retried = await chainApp.api.post("/api/v1/holder-proofs/verify", { message: typedData, signature });
      return retried.status === 503 ? undefined : retried;
    });
    expect(back.body).toMatchObject({ valid: true, holder: fan.address });
    expect(await verify(during, await signed(fan, during))).toMatchObject({ valid: true, holder: fan.address });
  });
});

describe("bad input", () => {
  const challenges = async () => Number((await sqlOf(chainApp.testApp)<{ n: string }>(`SELECT count(*) AS n FROM holder_proof_challenges`))[0].n);

  it("to a challenge is refused naming the field, and issues nothing", async () => {
    const before = await challenges();
    const cases: [unknown, number, Record<string, unknown>][] = [
      [[], 400, { code: "invalid_body" }],
      [{}, 400, { code: "invalid_body" }],
      [{ tokenId: tickets.fan.toString(), eventId }, 400, { code: "invalid_body" }],
      [{ tokenId: "0x10" }, 400, { code: "invalid_field", field: "tokenId" }],
      [{ tokenId: 5 }, 400, { code: "invalid_field", field: "tokenId" }],
      [{ eventId: "" }, 400, { code: "invalid_field", field: "eventId" }],
      [{ tokenId: "1" }, 404, { code: "token_not_found" }],
      [{ eventId: uid("no-such-event") }, 404, { code: "event_not_found" }],
    ];
    for (const [body, status, error] of cases) {
      const answer = await chainApp.api.post("/api/v1/holder-proofs/challenge", body);
      expect({ status: answer.status, error: answer.body.error }, JSON.stringify(body)).toMatchObject({ status, error });
    }
    expect(await challenges()).toBe(before);
  });

  it("to a verify is refused naming the field, and uses nothing", async () => {
    const typedData = await challenge({ tokenId: tickets.fan.toString() });
    const signature = await signed(fan, typedData);
    const cases: [Record<string, unknown>, string][] = [
      [{ signature }, "message"],
      [{ message: typedData, signature: "0x123" }, "signature"],
      [{ message: typedData, signature: "0x" + "00".repeat(4097) }, "signature"],
      [{ message: typedData, signature, holder: "0x1234" }, "holder"],
      [{ message: { ...typedData, primaryType: "Mail" }, signature }, "message.primaryType"],
      [{ message: { ...typedData, types: { ...typedData.types, Mail: [] } }, signature }, "message.types"],
      [{ message: { ...typedData, domain: { ...typedData.domain, name: "Other" } }, signature }, "message.domain.name"],
      [{ message: { ...typedData, message: { ...typedData.message, nonce: "0x12" } }, signature }, "message.message.nonce"],
    ];
    for (const [body, field] of cases) {
      const answer = await chainApp.api.post("/api/v1/holder-proofs/verify", body);
      expect({ status: answer.status, error: answer.body.error }, field).toMatchObject({ status: 400, error: { code: "invalid_field", field } });
    }
    expect(await verify(typedData, signature)).toMatchObject({ valid: true });
  });
});

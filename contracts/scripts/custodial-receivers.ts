/**
 * `npm run bench:receivers`: how often a wallet address is refused as an ERC-721 receiver because it
 * falls in the registry's custodial address space (CustodialERC721._inCustodialSpace: the custody
 * address of any event index up to 2^40 - 1, or a holder address of any ticket after any number of
 * resales, registered or not). An address is refused when its top 24 bits equal the custody mask's
 * and its middle and low fields are both zero or both not: 1 in 2^24 of uniformly random addresses,
 * which wallet addresses are (the last 20 bytes of a Keccak-256 hash).
 *
 * It deploys the registry on Hardhat's in-process network, claims a ticket to a wallet, draws
 * SAMPLES random addresses (default 2^30) and counts those in the space with the TypeScript mirror
 * (src/registry/registry-custody.ts), then asks the contract itself: every address found must be
 * refused by transferFrom (ERC721InvalidReceiver) and 1,000 others accepted (both as eth_call, so the
 * token stays put). SAMPLES=… changes the count.
 */
import { randomBytes } from "node:crypto";

import { getAddress, hexlify, ZeroHash } from "ethers";
import { network } from "hardhat";

import { custodyMaskOf, encodeBatch, eventKeyOf, inCustodialSpace, ticketHashOf, ticketeerKeyOf, tokenIdOf } from "./registry.js";
import type { TicketRegistry } from "../types/index.js";

const SAMPLES = Number(process.env.SAMPLES ?? 2 ** 30);
const ADDRESSES_PER_DRAW = 65_536;
const ACCEPTED_CHECKS = 1_000;

async function claimedToken(): Promise<{ registry: TicketRegistry; holder: string; tokenId: bigint; mask: bigint }> {
  const { ethers } = await network.create();
  const [admin, holder] = await ethers.getSigners();
  const registry = await ethers.deployContract("TicketRegistry", [admin.address, "Ticket Registry", "TICKET", "", ""]);
  await (await registry.grantRole(await registry.OPERATOR_ROLE(), admin.address)).wait();
  const tokenId = tokenIdOf(1n, 1n);
  const details = {
    name: "",
    currency: "EUR",
    shopUrl: "",
    imageUrl: "",
    latitude: 0,
    longitude: 0,
    startTime: 0n,
    endTime: 0n,
    organizer: "",
    metadataHash: ZeroHash,
  };
  await (
    await registry.execute(
      encodeBatch([
        { action: "registerEvent", eventIndex: 1n, eventKey: eventKeyOf("t", "e"), ticketeer: ticketeerKeyOf("t"), details },
        { action: "sold", tokenId, ticketHash: ticketHashOf("ticket"), price: "1", orderTime: 1n },
        { action: "checkedIn", tokenId, orderTime: 1n },
        { action: "claimed", tokenId, to: holder.address },
      ]),
    )
  ).wait();
  const { chainId } = await ethers.provider.getNetwork();
  return { registry: registry.connect(holder), holder: holder.address, tokenId, mask: custodyMaskOf(chainId, await registry.getAddress()) };
}

/** Random addresses in the space, out of SAMPLES: only the rare ones whose top 24 bits match the mask's are decoded in full. */
function sampleSpace(mask: bigint): { inSpace: string[]; sampled: number } {
  const top = Buffer.from(mask.toString(16).padStart(40, "0").slice(0, 6), "hex");
  const inSpace: string[] = [];
  let sampled = 0;
  while (sampled < SAMPLES) {
    const count = Math.min(ADDRESSES_PER_DRAW, SAMPLES - sampled);
    const bytes = randomBytes(count * 20);
    for (let at = 0; at < bytes.length; at += 20) {
      if (bytes[at] !== top[0] || bytes[at + 1] !== top[1] || bytes[at + 2] !== top[2]) continue;
      const address = getAddress(hexlify(bytes.subarray(at, at + 20)));
      if (inCustodialSpace(mask, address)) inSpace.push(address);
    }
    sampled += count;
  }
  return { inSpace, sampled };
}

async function refused(registry: TicketRegistry, holder: string, to: string, tokenId: bigint): Promise<boolean> {
  try {
    await registry.transferFrom.staticCall(holder, to, tokenId);
    return false;
  } catch (error) {
    if (registry.interface.parseError((error as { data?: string }).data ?? "0x")?.name === "ERC721InvalidReceiver") return true;
    throw error;
  }
}

async function main(): Promise<void> {
  const { registry, holder, tokenId, mask } = await claimedToken();
  const started = Date.now();
  const { inSpace, sampled } = sampleSpace(mask);
  const seconds = (Date.now() - started) / 1000;
  for (const address of inSpace)
    if (!(await refused(registry, holder, address, tokenId))) throw new Error(`the contract accepted ${address}, which is in its custodial space`);
  const others = Array.from({ length: ACCEPTED_CHECKS }, () => getAddress(hexlify(randomBytes(20)))).filter((address) => !inCustodialSpace(mask, address));
  for (const address of others)
    if (await refused(registry, holder, address, tokenId)) throw new Error(`the contract refused ${address}, which is outside its custodial space`);

  const expected = 2 ** -24;
  const rate = inSpace.length / sampled;
  // A 95% interval for a Poisson count: ±1.96 sqrt(n), good enough beside the exact figure.
  const spread = (1.96 * Math.sqrt(Math.max(inSpace.length, 1))) / sampled;
  console.log(`Sampled ${sampled.toLocaleString("en-US")} random addresses in ${seconds.toFixed(1)} s`);
  console.log(`In the custodial space (refused as receivers): ${inSpace.length}, a rate of ${rate.toExponential(3)} (95%: ±${spread.toExponential(1)})`);
  console.log(`Expected: 2^-24 = ${expected.toExponential(3)} (1 in ${(1 / expected).toLocaleString("en-US")})`);
  console.log(`The contract refused all ${inSpace.length} and accepted all ${others.length} random addresses outside the space`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

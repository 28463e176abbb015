import { AbiCoder, keccak256 } from "ethers";

/** The largest event index a registry accepts (TicketIds.MAX_EVENT_INDEX). */
export const MAX_EVENT_INDEX = (1n << 40n) - 1n;

const UINT64_MAX = (1n << 64n) - 1n;
const UINT32_MAX = (1n << 32n) - 1n;
const ADDRESS_MASK = (1n << 160n) - 1n;

/** The XOR mask of a registry's custodial addresses: keccak256(abi.encode(chainId, registry, "TicketRegistry.custody")), low 160 bits. */
export function custodyMaskOf(chainId: bigint, registryAddress: string): bigint {
  const encoded = AbiCoder.defaultAbiCoder().encode(["uint256", "address", "string"], [chainId, registryAddress, "TicketRegistry.custody"]);
  return BigInt(keccak256(encoded)) & ADDRESS_MASK;
}

/**
 * Whether `address` is in the registry's custodial address space (CustodialERC721._inCustodialSpace): the
 * custody address of any event index it can have, or a holder address of any ticket of one after any
 * resales, registered or not. The registry's own mints, resales and claims move tokens from such
 * addresses; no wallet can send a token to one.
 */
export function inCustodialSpace(mask: bigint, address: string): boolean {
  const packed = BigInt(address) ^ mask;
  const eventIndex = packed >> 96n;
  const serial = (packed >> 32n) & UINT64_MAX;
  const resales = packed & UINT32_MAX;
  return eventIndex <= MAX_EVENT_INDEX && (serial === 0n) === (resales === 0n);
}

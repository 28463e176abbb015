import { getAddress, isHexString, type TypedDataDomain, TypedDataEncoder, type TypedDataField } from "ethers";

import { type ErrorDetail, invalidField } from "../common/errors/error-detail";

/** The EIP-712 domain's name and version: a holder proof of this service, version 1 of its message. */
export const PROOF_DOMAIN_NAME = "Ticket Registry holder proof";
export const PROOF_DOMAIN_VERSION = "1";

/** The longest a challenge lives, and its default. */
export const MAX_PROOF_TTL_SECONDS = 120;

const DOMAIN_FIELDS: TypedDataField[] = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
];

/** What a proof is about: one token, or any token of one event (by the registry's event index, never the integrator's eventId). */
export type ProofSubject = { kind: "token"; tokenId: bigint } | { kind: "event"; eventIndex: bigint };

const PRIMARY_TYPES = {
  token: "TokenHolderProof",
  event: "EventHolderProof",
} as const;

type PrimaryType = (typeof PRIMARY_TYPES)[keyof typeof PRIMARY_TYPES];

const PROOF_FIELDS: Record<PrimaryType, TypedDataField[]> = {
  TokenHolderProof: [
    { name: "tokenId", type: "uint256" },
    { name: "nonce", type: "bytes32" },
    { name: "expiry", type: "uint64" },
  ],
  EventHolderProof: [
    { name: "eventIndex", type: "uint64" },
    { name: "nonce", type: "bytes32" },
    { name: "expiry", type: "uint64" },
  ],
};

/** A proof's message, whichever its subject: what is signed besides the domain. */
export interface ProofMessage {
  chainId: bigint;
  registryAddress: string;
  subject: ProofSubject;
  /** 0x and 64 hex digits, lower case. */
  nonce: string;
  /** Unix seconds. */
  expiry: bigint;
}

/**
 * The typed data as eth_signTypedData_v4 takes it (EIP-712's JSON: the domain's type among the
 * types). ethers' signTypedData(domain, types, message) takes the same without `types.EIP712Domain`,
 * which it derives itself. Numbers that may pass 2^53 are decimal strings.
 */
export interface IssuedTypedData {
  types: Record<string, TypedDataField[]>;
  primaryType: PrimaryType;
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  message: Record<string, string | number>;
}

export function typedDataOf(proof: ProofMessage): IssuedTypedData {
  const primaryType = PRIMARY_TYPES[proof.subject.kind];
  const subject: Record<string, string> =
    proof.subject.kind === "token" ? { tokenId: proof.subject.tokenId.toString() } : { eventIndex: proof.subject.eventIndex.toString() };
  return {
    types: { EIP712Domain: DOMAIN_FIELDS, [primaryType]: PROOF_FIELDS[primaryType] },
    primaryType,
    domain: { name: PROOF_DOMAIN_NAME, version: PROOF_DOMAIN_VERSION, chainId: Number(proof.chainId), verifyingContract: getAddress(proof.registryAddress) },
    message: { ...subject, nonce: proof.nonce, expiry: Number(proof.expiry) },
  };
}

/** The domain, types (without EIP712Domain) and values of a proof, as ethers' TypedDataEncoder and verifyTypedData take them. */
export function ethersTypedData(proof: ProofMessage): { domain: TypedDataDomain; types: Record<string, TypedDataField[]>; value: Record<string, unknown> } {
  const { domain, primaryType, message } = typedDataOf(proof);
  return { domain, types: { [primaryType]: PROOF_FIELDS[primaryType] }, value: message };
}

/** The EIP-712 digest a wallet signs: what an ERC-1271 wallet's isValidSignature is asked about. */
export function proofDigest(proof: ProofMessage): string {
  const { domain, types, value } = ethersTypedData(proof);
  return TypedDataEncoder.hash(domain, types, value);
}

export type Parsed<T> = { value: T; error?: undefined } | { value?: undefined; error: ErrorDetail };

const UINT64_MAX = (1n << 64n) - 1n;
const UINT256_MAX = (1n << 256n) - 1n;

/**
 * The `message` of a verify request read back into a proof: the typed data exactly as issued (with
 * or without `types.EIP712Domain`), or an invalid_field naming what is not. The values may differ
 * from what was issued (another chain id, an expiry moved): the verdict says so, not this.
 */
export function parseTypedData(raw: unknown): Parsed<ProofMessage> {
  if (!isObject(raw)) return fail("message", "must be the typed data object the challenge answered");
  const primaryType = raw.primaryType;
  if (primaryType !== PRIMARY_TYPES.token && primaryType !== PRIMARY_TYPES.event) {
    return fail("message.primaryType", `must be ${PRIMARY_TYPES.token} or ${PRIMARY_TYPES.event}`);
  }
  const typesProblem = checkTypes(raw.types, primaryType);
  if (typesProblem) return { error: typesProblem };
  const domain = parseDomain(raw.domain);
  if (domain.error) return domain;
  if (!isObject(raw.message)) return fail("message.message", "must be an object");
  const values = raw.message;
  const nonce = values.nonce;
  if (typeof nonce !== "string" || !isHexString(nonce, 32)) return fail("message.message.nonce", "must be 0x and 64 hex digits");
  const expiry = unsigned(values.expiry, UINT64_MAX);
  if (expiry === null) return fail("message.message.expiry", "must be an unsigned 64-bit integer (unix seconds)");
  let subject: ProofSubject;
  if (primaryType === PRIMARY_TYPES.token) {
    const tokenId = unsigned(values.tokenId, UINT256_MAX);
    if (tokenId === null) return fail("message.message.tokenId", "must be an unsigned 256-bit integer, in decimal");
    subject = { kind: "token", tokenId };
  } else {
    const eventIndex = unsigned(values.eventIndex, UINT64_MAX);
    if (eventIndex === null) return fail("message.message.eventIndex", "must be an unsigned 64-bit integer, in decimal");
    subject = { kind: "event", eventIndex };
  }
  return { value: { ...domain.value, subject, nonce: nonce.toLowerCase(), expiry } };
}

function checkTypes(raw: unknown, primaryType: PrimaryType): ErrorDetail | null {
  if (!isObject(raw)) return invalidField("message.types", "must be an object");
  const expected: Record<string, TypedDataField[]> = { [primaryType]: PROOF_FIELDS[primaryType] };
  if ("EIP712Domain" in raw) expected.EIP712Domain = DOMAIN_FIELDS;
  const same = Object.keys(raw).length === Object.keys(expected).length && Object.entries(expected).every(([name, fields]) => sameFields(raw[name], fields));
  return same ? null : invalidField("message.types", `must be the types the challenge answered: ${primaryType} (and EIP712Domain) as issued`);
}

function sameFields(raw: unknown, fields: TypedDataField[]): boolean {
  return (
    Array.isArray(raw) &&
    raw.length === fields.length &&
    fields.every((field, i) => isObject(raw[i]) && raw[i].name === field.name && raw[i].type === field.type && Object.keys(raw[i]).length === 2)
  );
}

function parseDomain(raw: unknown): Parsed<{ chainId: bigint; registryAddress: string }> {
  if (!isObject(raw)) return fail("message.domain", "must be an object");
  if (raw.name !== PROOF_DOMAIN_NAME) return fail("message.domain.name", `must be "${PROOF_DOMAIN_NAME}"`);
  if (raw.version !== PROOF_DOMAIN_VERSION) return fail("message.domain.version", `must be "${PROOF_DOMAIN_VERSION}"`);
  const chainId = unsigned(raw.chainId, UINT256_MAX);
  if (chainId === null) return fail("message.domain.chainId", "must be an unsigned integer");
  const contract = raw.verifyingContract;
  if (typeof contract !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(contract)) return fail("message.domain.verifyingContract", "must be an address");
  return { value: { chainId, registryAddress: getAddress(contract.toLowerCase()) } };
}

/** A JSON number or decimal string as an unsigned integer up to `max`; null otherwise. */
function unsigned(value: unknown, max: bigint): bigint | null {
  if (typeof value === "number") return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : null;
  if (typeof value !== "string" || !/^(0|[1-9][0-9]{0,77})$/.test(value)) return null;
  const parsed = BigInt(value);
  return parsed <= max ? parsed : null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(field: string, message: string): { error: ErrorDetail } {
  return { error: invalidField(field, message) };
}

/** How far ahead the funds must reach, and how far back the gas that predicts it is read. */
export const FUNDS_HORIZON_MS = 60 * 60 * 1000;

export interface FundsNeedInput {
  /** Gas the signer's transactions used over the last hour. */
  gasLastHour: bigint;
  /** Gas of one full batch: what a signer must be able to pay even with no recent traffic. */
  floorGas: bigint;
  /** The chain's current maxFeePerGas, in wei. */
  maxFeePerGas: bigint;
  /** A configured balance no signer should go below, in wei (0: none). */
  minimumWei: bigint;
}

/**
 * What the next hour of batches needs at current fees: the last hour's gas, but never less than
 * one full batch (a node refuses a transaction whose gas limit times fee exceeds the balance),
 * priced at the current maxFeePerGas; never below the configured minimum.
 */
export function fundsNeeded({ gasLastHour, floorGas, maxFeePerGas, minimumWei }: FundsNeedInput): bigint {
  const gas = gasLastHour > floorGas ? gasLastHour : floorGas;
  const need = gas * maxFeePerGas;
  return need > minimumWei ? need : minimumWei;
}

export interface SignerFunds {
  address: string;
  balanceWei: bigint;
  neededWei: bigint;
  gasLastHour: bigint;
  nonces: { chainLatest: number; chainPending: number; ledgerNext: number | null };
  /** The balance is below what the next hour needs. */
  short: boolean;
}

export interface FundsChange {
  address: string;
  nowShort: boolean;
}

/**
 * Signers whose state changed since the previous check (a first check counts as a change only
 * when the signer is short): the monitor warns once per change, not at every tick.
 */
export function fundsChanges(previous: readonly SignerFunds[] | null, current: readonly SignerFunds[]): FundsChange[] {
  const before = new Map((previous ?? []).map((signer) => [signer.address, signer.short]));
  return current
    .filter((signer) => (before.get(signer.address) ?? false) !== signer.short)
    .map((signer) => ({ address: signer.address, nowShort: signer.short }));
}

/** The state as health details and log lines show it: amounts as decimal strings of wei (JSON has no bigint). */
export function describeFunds(signer: SignerFunds): Record<string, unknown> {
  return {
    status: signer.short ? "short" : "funded",
    balanceWei: signer.balanceWei.toString(),
    neededWei: signer.neededWei.toString(),
    gasLastHour: signer.gasLastHour.toString(),
    nonces: signer.nonces,
  };
}

import { getAddress, toQuantity, Transaction, Wallet } from "ethers";

import type { ChainConfig } from "../config/app-config";

const REMOTE_SIGNER_TIMEOUT_MS = 10_000;

/** The EIP-1559 call the writer asks a signer to sign: a batch, or its replacement at the same nonce. */
export interface UnsignedCall {
  type: 2;
  chainId: bigint;
  nonce: number;
  to: string;
  data: string;
  value: bigint;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * An operator account of the registry: a local key (an ethers Wallet fits as it is) or an account
 * held by a remote signer. Either answers the signed raw transaction; nothing of it holds a provider.
 */
export interface ChainSigner {
  readonly address: string;
  signTransaction(call: UnsignedCall): Promise<string>;
}

/** The remote signer did not sign, or signed something other than what it was asked. */
export class RemoteSignerError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RemoteSignerError";
  }
}

/** The writer's signers in shard order: SIGNER_PRIVATE_KEYS, or the SIGNER_ADDRESSES a SIGNER_REMOTE_URL signs for. */
export function signersOf(chain: ChainConfig): ChainSigner[] {
  const url = chain.signerRemoteUrl;
  if (url !== null) return chain.signerAddresses.map((address) => new RemoteSigner(getAddress(address.toLowerCase()), url));
  return chain.signerKeys.map((key) => new Wallet(key));
}

/**
 * An account whose key lives in a remote signer (Web3Signer, Clef, or any server of
 * `eth_signTransaction`). What comes back is decoded and compared with what was asked: a signer
 * that signs for another account, another nonce, another target, data or fees is refused.
 */
export class RemoteSigner implements ChainSigner {
  constructor(
    readonly address: string,
    private readonly url: string,
  ) {}

  async signTransaction(call: UnsignedCall): Promise<string> {
    const request = {
      from: this.address,
      to: call.to,
      data: call.data,
      gas: toQuantity(call.gasLimit),
      maxFeePerGas: toQuantity(call.maxFeePerGas),
      maxPriorityFeePerGas: toQuantity(call.maxPriorityFeePerGas),
      nonce: toQuantity(call.nonce),
      chainId: toQuantity(call.chainId),
      type: "0x2",
      value: toQuantity(call.value),
    };
    const raw = rawOf(await this.post(request), this.address);
    verifySigned(raw, this.address, call);
    return raw;
  }

  private async post(request: Record<string, string>): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_signTransaction", params: [request] }),
        signal: AbortSignal.timeout(REMOTE_SIGNER_TIMEOUT_MS),
      });
    } catch (error) {
      // The URL is not echoed: it may carry a credential.
      throw new RemoteSignerError(`the remote signer is unreachable: ${(error as Error).message}`, { cause: error });
    }
    if (!response.ok) throw new RemoteSignerError(`the remote signer answered ${response.status} ${response.statusText}`);
    return response.json();
  }
}

/** Web3Signer and Anvil answer the raw hex; geth-style signers answer `{raw, tx}`. */
function rawOf(body: unknown, address: string): string {
  const { result, error } = (body ?? {}) as { result?: unknown; error?: { message?: string } };
  if (error) throw new RemoteSignerError(`the remote signer refused to sign for ${address}: ${error.message ?? JSON.stringify(error)}`);
  const raw = typeof result === "object" && result !== null ? (result as { raw?: unknown }).raw : result;
  if (typeof raw !== "string" || !/^0x[0-9a-fA-F]+$/.test(raw)) throw new RemoteSignerError(`the remote signer answered no signed transaction for ${address}`);
  return raw;
}

/** Decodes the signed bytes and refuses them unless they are exactly the call asked for, signed by `address`. */
export function verifySigned(raw: string, address: string, call: UnsignedCall): void {
  let signed: Transaction;
  try {
    signed = Transaction.from(raw);
  } catch (error) {
    throw new RemoteSignerError(`the remote signer answered bytes that are no transaction: ${(error as Error).message}`, { cause: error });
  }
  const mismatches: string[] = [];
  const expect = (field: string, actual: unknown, wanted: unknown) => {
    if (actual !== wanted) mismatches.push(`${field} ${String(actual)} instead of ${String(wanted)}`);
  };
  expect("from", signed.from === null ? null : getAddress(signed.from), getAddress(address));
  expect("type", signed.type, call.type);
  expect("chainId", signed.chainId, call.chainId);
  expect("nonce", signed.nonce, call.nonce);
  expect("to", signed.to === null ? null : getAddress(signed.to), getAddress(call.to));
  if (signed.data.toLowerCase() !== call.data.toLowerCase()) mismatches.push("other data");
  expect("value", signed.value, call.value);
  expect("gasLimit", signed.gasLimit, call.gasLimit);
  expect("maxFeePerGas", signed.maxFeePerGas, call.maxFeePerGas);
  expect("maxPriorityFeePerGas", signed.maxPriorityFeePerGas, call.maxPriorityFeePerGas);
  if (mismatches.length > 0) throw new RemoteSignerError(`the remote signer's transaction for ${address} is not the one asked for: ${mismatches.join("; ")}`);
}

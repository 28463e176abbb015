import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { Transaction, Wallet } from "ethers";

/** One `eth_signTransaction` request the signer holds: its transaction, and the answer released when the test says. */
export interface HeldSigning {
  /** Resolves when the service asks for the signature, with the transaction it asked for. */
  asked: Promise<Record<string, string>>;
  /** Answers the held request, signed. */
  release: () => void;
}

export interface HeldSigner {
  url: string;
  /** The next signature request waits for `release()`; the ones after it are answered at once. */
  holdNext: () => HeldSigning;
  /** Every transaction the service asked to sign, in order. */
  asked: Record<string, string>[];
  close: () => Promise<void>;
}

/**
 * A remote signer (SIGNER_REMOTE_URL) for these keys that answers `eth_signTransaction` as Web3Signer
 * does, and can hold one answer: so that a test acts while the service's writer is signing.
 */
export async function startHeldSigner(keys: readonly string[]): Promise<HeldSigner> {
  const wallets = new Map(keys.map((key) => [new Wallet(key).address.toLowerCase(), new Wallet(key)]));
  const asked: Record<string, string>[] = [];
  let held: { notify: (request: Record<string, string>) => void; gate: Promise<void> } | null = null;

  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      void (async () => {
        const { id, params } = JSON.parse(body) as { id: number; params: [Record<string, string>] };
        const [call] = params;
        asked.push(call);
        const hold = held;
        held = null;
        if (hold) {
          hold.notify(call);
          await hold.gate;
        }
        const wallet = wallets.get(call.from.toLowerCase());
        if (!wallet) throw new Error(`no key for ${call.from}`);
        const raw = await wallet.signTransaction(
          Transaction.from({
            type: 2,
            to: call.to,
            data: call.data,
            gasLimit: BigInt(call.gas),
            maxFeePerGas: BigInt(call.maxFeePerGas),
            maxPriorityFeePerGas: BigInt(call.maxPriorityFeePerGas),
            nonce: Number(BigInt(call.nonce)),
            chainId: BigInt(call.chainId),
            value: BigInt(call.value),
          }),
        );
        response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id, result: raw }));
      })().catch((error: unknown) => response.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    asked,
    holdNext: () => {
      let notify!: (request: Record<string, string>) => void;
      let release!: () => void;
      const askedPromise = new Promise<Record<string, string>>((resolve) => (notify = resolve));
      const gate = new Promise<void>((resolve) => (release = resolve));
      held = { notify, gate };
      return { asked: askedPromise, release };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

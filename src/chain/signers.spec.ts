import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { Wallet } from "ethers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { loadConfig } from "../config/app-config";
import { RemoteSigner, RemoteSignerError, signersOf, type UnsignedCall } from "./signers";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const OTHER_KEY = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const wallet = new Wallet(KEY);

const CALL: UnsignedCall = {
  type: 2,
  chainId: 80002n,
  nonce: 7,
  to: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  data: "0x1234abcd",
  value: 0n,
  gasLimit: 500_000n,
  maxFeePerGas: 40_000_000_000n,
  maxPriorityFeePerGas: 30_000_000_000n,
};

interface Request {
  from: string;
  to: string;
  data: string;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  nonce: string;
  chainId: string;
  type: string;
  value: string;
}

/** How the fake signer answers a request: the JSON-RPC response body. */
let answer: (request: Request) => Promise<unknown>;
const requests: Request[] = [];
let server: Server;
let url: string;

const signedBy = (key: string, request: Request, changes: Partial<UnsignedCall> = {}) =>
  new Wallet(key).signTransaction({
    type: 2,
    chainId: BigInt(request.chainId),
    nonce: Number(request.nonce),
    to: request.to,
    data: request.data,
    value: BigInt(request.value),
    gasLimit: BigInt(request.gas),
    maxFeePerGas: BigInt(request.maxFeePerGas),
    maxPriorityFeePerGas: BigInt(request.maxPriorityFeePerGas),
    ...changes,
  });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const payload = JSON.parse(body) as { id: number; method: string; params: [Request] };
      expect(payload.method).toBe("eth_signTransaction");
      requests.push(payload.params[0]);
      void answer(payload.params[0]).then((result) => {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id: payload.id, ...(result as object) }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("RemoteSigner", () => {
  const sut = () => new RemoteSigner(wallet.address, url);

  it("asks eth_signTransaction for the call, with quantities in hex, and returns what was signed", async () => {
    answer = async (request) => ({ result: await signedBy(KEY, request) });
    const raw = await sut().signTransaction(CALL);
    expect(raw).toBe(await wallet.signTransaction(CALL));
    expect(requests.at(-1)).toEqual({
      from: wallet.address,
      to: CALL.to,
      data: CALL.data,
      gas: "0x7a120",
      maxFeePerGas: "0x9502f9000",
      maxPriorityFeePerGas: "0x6fc23ac00",
      nonce: "0x7",
      chainId: "0x13882",
      type: "0x2",
      value: "0x0",
    });
  });

  it("takes a geth-style {raw, tx} answer", async () => {
    answer = async (request) => ({ result: { raw: await signedBy(KEY, request), tx: {} } });
    expect(await sut().signTransaction(CALL)).toBe(await wallet.signTransaction(CALL));
  });

  it("refuses a transaction signed by another account", async () => {
    answer = async (request) => ({ result: await signedBy(OTHER_KEY, request) });
    await expect(sut().signTransaction(CALL)).rejects.toThrow(/not the one asked for: from 0x3C44/);
  });

  it.each([
    ["nonce", { nonce: 8 }, /nonce 8 instead of 7/],
    ["target", { to: "0x000000000000000000000000000000000000dEaD" }, /to 0x000000000000000000000000000000000000dEaD instead of 0x5FbDB/],
    ["data", { data: "0xdeadbeef" }, /other data/],
    ["fee", { maxFeePerGas: 80_000_000_000n }, /maxFeePerGas 80000000000 instead of 40000000000/],
    ["tip", { maxPriorityFeePerGas: 1n }, /maxPriorityFeePerGas 1 instead of 30000000000/],
    ["gas limit", { gasLimit: 21_000n }, /gasLimit 21000 instead of 500000/],
    ["chain", { chainId: 1n }, /chainId 1 instead of 80002/],
    ["value", { value: 1n }, /value 1 instead of 0/],
  ])("refuses a transaction with another %s than asked", async (_what, changes, message) => {
    answer = async (request) => ({ result: await signedBy(KEY, request, changes) });
    const error = await sut()
      .signTransaction(CALL)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RemoteSignerError);
    expect((error as Error).message).toMatch(message);
  });

  it("reports a refusal, garbage and an HTTP error", async () => {
    answer = () => Promise.resolve({ error: { code: -32000, message: "unknown account" } });
    await expect(sut().signTransaction(CALL)).rejects.toThrow(`the remote signer refused to sign for ${wallet.address}: unknown account`);
    answer = () => Promise.resolve({ result: "0x02c0ffee" });
    await expect(sut().signTransaction(CALL)).rejects.toThrow(/the remote signer answered bytes that are no transaction/);
    answer = () => Promise.resolve({ result: null });
    await expect(sut().signTransaction(CALL)).rejects.toThrow(/answered no signed transaction/);
    await expect(new RemoteSigner(wallet.address, `${url}/missing`.replace(/\/\/127/, "//user:pw@127")).signTransaction(CALL)).rejects.toThrow(
      RemoteSignerError,
    );
  });
});

describe("signersOf", () => {
  it("gives local wallets for keys and remote accounts (checksummed) for a remote signer", () => {
    const local = signersOf(loadConfig({ SIGNER_PRIVATE_KEYS: KEY }).chain);
    expect(local.map((signer) => [signer.address, signer instanceof Wallet])).toEqual([[wallet.address, true]]);
    const remote = signersOf(loadConfig({ SIGNER_REMOTE_URL: "http://signer:9000", SIGNER_ADDRESSES: wallet.address.toLowerCase() }).chain);
    expect(remote.map((signer) => [signer.address, signer instanceof RemoteSigner])).toEqual([[wallet.address, true]]);
  });
});

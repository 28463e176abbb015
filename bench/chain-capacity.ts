import { HDNodeWallet, Mnemonic, Transaction, type Wallet, ZeroHash } from "ethers";
import type { Client } from "pg";

import { encodeBatch, eventKeyOf, type RegistryBatchItem, ticketeerKeyOf, ticketHashOf, tokenIdOf } from "../src/registry";
import type { BenchChain } from "./stack/bench-chain";

/**
 * The chain node's own capacity for the batches the service sent: the same registry calls (an
 * `execute` of `sold` items), the same number of items per batch, the same gas limits, signed
 * beforehand with ethers by a development account of its own (made an operator) for an event of
 * its own, then sent straight to the same node one after the other (`eth_sendRawTransaction` over
 * `fetch`, no service) and timed from the first send until the node's latest nonce of that account
 * shows the last one mined (a transaction the node lost from its pool, neither mined nor pending, is
 * sent again, byte for byte, and counted). Every receipt is checked afterwards (status 1, no `ItemFailed`), and
 * the event's `ticketsSold` on chain.
 */
export interface ChainCapacity {
  tickets: number;
  batches: number;
  /** Transactions sent again because the node had lost them. */
  resent: number;
  seconds: number;
  ticketsPerSecond: number;
  /**
   * This process's CPU (user and system) to build the batches' items, encode them and sign each
   * transaction, with nothing else: the floor of a writer's work per ticket, in microseconds.
   */
  encodeAndSignMicrosPerTicket: number;
}

/** Development account #0 (the registry's admin) and the account the capacity run signs with (#9: the service uses #1 to #N). */
const DEV_MNEMONIC = "test test test test test test test test test test test junk";
const devAccount = (index: number) => HDNodeWallet.fromMnemonic(Mnemonic.fromPhrase(DEV_MNEMONIC), `m/44'/60'/0'/0/${index}`);
/** Far above the event indexes a bench run's service assigns. */
const CAPACITY_EVENT_INDEX = 1_000_000n;

interface ServiceBatch {
  itemCount: number;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** The sale batches the service's writer confirmed, in nonce order. */
export async function serviceSaleBatches(db: Client): Promise<ServiceBatch[]> {
  const { rows } = await db.query<{ item_count: number; gas_limit: string; max_fee_per_gas: string; max_priority_fee_per_gas: string }>(
    `SELECT item_count, gas_limit, max_fee_per_gas, max_priority_fee_per_gas FROM chain_transactions
      WHERE status = 'confirmed' AND item_count > 1 ORDER BY nonce`,
  );
  return rows.map((row) => ({
    itemCount: row.item_count,
    gasLimit: BigInt(row.gas_limit),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
  }));
}

export async function measureChainCapacity(chain: BenchChain, batches: readonly ServiceBatch[]): Promise<ChainCapacity> {
  if (batches.length === 0) throw new Error("no sale batches to repeat");
  const admin = devAccount(0).connect(chain.provider);
  const sender = devAccount(9).connect(chain.provider);
  const registry = chain.registry.connect(admin);
  await (await registry.grantRole(await registry.OPERATOR_ROLE(), sender.address)).wait();
  const register: RegistryBatchItem = {
    action: "registerEvent",
    eventIndex: CAPACITY_EVENT_INDEX,
    eventKey: eventKeyOf("capacity", "capacity-event"),
    ticketeer: ticketeerKeyOf("capacity"),
    details: {
      name: "Capacity",
      currency: "EUR",
      shopUrl: "",
      imageUrl: "",
      latitude: 0,
      longitude: 0,
      startTime: 0n,
      endTime: 0n,
      organizer: "",
      metadataHash: ZeroHash,
    },
  };
  await (await chain.registry.connect(sender).execute(encodeBatch([register]))).wait();

  // Fees: the service's highest, doubled, so that a base fee raised by full blocks never holds a transaction back.
  const maxPriorityFeePerGas = batches.reduce((max, batch) => (batch.maxPriorityFeePerGas > max ? batch.maxPriorityFeePerGas : max), 0n);
  const maxFeePerGas = 2n * batches.reduce((max, batch) => (batch.maxFeePerGas > max ? batch.maxFeePerGas : max), 0n);
  const firstNonce = await chain.provider.getTransactionCount(sender.address, "latest");
  const raw: string[] = [];
  let serial = 0n;
  const cpuBefore = process.cpuUsage();
  for (const [index, batch] of batches.entries()) {
    const items = Array.from({ length: batch.itemCount }, (): RegistryBatchItem => {
      serial += 1n;
      return {
        action: "sold",
        tokenId: tokenIdOf(CAPACITY_EVENT_INDEX, serial),
        ticketHash: ticketHashOf(`capacity-${serial}`),
        price: "49.95",
        orderTime: 1_750_000_000n,
      };
    });
    const data = chain.registry.interface.encodeFunctionData("execute", [encodeBatch(items)]);
    raw.push(await signBatch(sender, chain, data, firstNonce + index, batch.gasLimit, maxFeePerGas, maxPriorityFeePerGas));
  }
  const tickets = Number(serial);
  const cpu = process.cpuUsage(cpuBefore);
  const encodeAndSignMicrosPerTicket = (cpu.user + cpu.system) / tickets;

  const started = performance.now();
  const hashes: string[] = [];
  for (const transaction of raw) hashes.push(await rpc<string>(chain.url, "eth_sendRawTransaction", [transaction]));
  const lastNonce = firstNonce + raw.length;
  let resent = 0;
  let checkedPoolAt = performance.now();
  for (;;) {
    const count = Number(await rpc<string>(chain.url, "eth_getTransactionCount", [sender.address, "latest"]));
    if (count >= lastNonce) break;
    if (performance.now() - started > 600_000) throw new Error(`capacity run: only ${count - firstNonce} of ${raw.length} batches mined within 600 s`);
    if (performance.now() - checkedPoolAt > 1_000) {
      // Anvil was seen to drop a transaction from its pool (neither mined nor pending): send again what it lost, as the writer would.
      checkedPoolAt = performance.now();
      const pending = Number(await rpc<string>(chain.url, "eth_getTransactionCount", [sender.address, "pending"]));
      for (let nonce = pending; nonce < lastNonce; nonce++) {
        await rpc<string>(chain.url, "eth_sendRawTransaction", [raw[nonce - firstNonce]]).catch(() => undefined);
        resent += 1;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const seconds = (performance.now() - started) / 1000;

  const itemFailed = chain.registry.interface.getEvent("ItemFailed")?.topicHash;
  for (const hash of hashes) {
    const receipt = await chain.provider.getTransactionReceipt(hash);
    if (!receipt || receipt.status !== 1) throw new Error(`capacity batch ${hash} failed`);
    if (receipt.logs.some((log) => log.topics[0] === itemFailed)) throw new Error(`capacity batch ${hash} had failed items`);
  }
  const onChain = await chain.registry.eventRecord(CAPACITY_EVENT_INDEX);
  if (onChain.ticketsSold !== BigInt(tickets)) throw new Error(`capacity run: the registry counts ${onChain.ticketsSold} tickets sold, not ${tickets}`);
  return { tickets, batches: raw.length, resent, seconds, ticketsPerSecond: tickets / seconds, encodeAndSignMicrosPerTicket };
}

async function signBatch(
  wallet: HDNodeWallet | Wallet,
  chain: BenchChain,
  data: string,
  nonce: number,
  gasLimit: bigint,
  maxFeePerGas: bigint,
  maxPriorityFeePerGas: bigint,
): Promise<string> {
  const transaction = Transaction.from({
    type: 2,
    chainId: BigInt(chain.chainId),
    to: chain.registryAddress,
    data,
    nonce,
    gasLimit,
    maxFeePerGas,
    maxPriorityFeePerGas,
  });
  return wallet.signTransaction(transaction);
}

let rpcId = 0;
async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++rpcId, method, params }),
  });
  const answer = (await response.json()) as { result?: T; error?: { message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as T;
}

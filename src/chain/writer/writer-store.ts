import { Injectable } from "@nestjs/common";
import { InjectDataSource } from "@nestjs/typeorm";
import { DataSource, type EntityManager } from "typeorm";

import { uuidv7 } from "../../common/uuid-v7";
import { registryItemFromJson } from "../../registry";
import type { PendingAction } from "./sending/pending-action";

export interface SignedTransaction {
  id: string;
  signer: string;
  chainId: bigint;
  nonce: bigint;
  attempt: number;
  hash: string;
  raw: string;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  itemCount: number;
}

/** An action a transaction carries, as log lines name it: its promise and the request that brought it. */
export interface CarriedAction {
  id: string;
  requestId: string | null;
}

export type TransactionStatus = "signed" | "broadcast" | "mined" | "confirmed" | "reverted" | "replaced";

export interface OpenTransaction extends SignedTransaction {
  status: TransactionStatus;
  broadcastAt: Date | null;
  createdAt: Date;
}

interface TransactionRow {
  id: string;
  signer: string;
  chain_id: string;
  nonce: string;
  attempt: number;
  tx_hash: string;
  raw_tx: string;
  gas_limit: string;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  item_count: number;
  status: TransactionStatus;
  broadcast_at: Date | null;
  created_at: Date;
}

/** The writer's reads and writes of the ledger: signers' nonces, signed transactions, their actions. */
@Injectable()
export class WriterStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Registers a signer the first time it writes, starting at the chain's count of its transactions. */
  async ensureSigner(address: string, chainId: bigint, chainNonce: bigint): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO chain_signers (address, chain_id, next_nonce) VALUES ($1, $2, $3) ON CONFLICT (address) DO NOTHING`,
      [address, chainId.toString(), chainNonce.toString()],
    );
  }

  async waitingActions(shardCount: number, shardIndex: number, limit: number): Promise<PendingAction[]> {
    const rows = (await this.dataSource.query(
      `SELECT id, seq, payload, created_at FROM chain_actions
        WHERE status = 'waiting_broadcast' AND shard_key % $1 = $2
        ORDER BY seq LIMIT $3`,
      [shardCount, shardIndex, limit],
    )) as { id: string; seq: string; payload: Record<string, unknown>; created_at: Date }[];
    return rows.map((row) => ({ id: row.id, seq: BigInt(row.seq), item: registryItemFromJson(row.payload), acceptedAt: row.created_at }));
  }

  /** Nonces of this signer sent and not yet final. */
  async inFlight(signer: string): Promise<number> {
    const [row] = (await this.dataSource.query(
      `SELECT count(DISTINCT nonce)::int AS count FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined')`,
      [signer],
    )) as { count: number }[];
    return row.count;
  }

  /**
   * Takes the signer's next nonce, signs with it and commits the raw transaction with its actions
   * before anything is broadcast: after a crash the same bytes are re-sent, never new ones.
   */
  async persistNew(
    signer: string,
    actions: readonly PendingAction[],
    sign: (nonce: bigint) => Promise<Omit<SignedTransaction, "id" | "attempt">>,
  ): Promise<SignedTransaction & { carried: CarriedAction[] }> {
    return this.dataSource.transaction(async (manager) => {
      const [row] = (await manager.query(`SELECT next_nonce FROM chain_signers WHERE address = $1 FOR UPDATE`, [signer])) as { next_nonce: string }[];
      const signed: SignedTransaction = { ...(await sign(BigInt(row.next_nonce))), id: uuidv7(), attempt: 1 };
      await this.insertTransaction(manager, signed);
      const claimed = (await manager.query(
        `UPDATE chain_actions AS a SET status = 'pending', tx_hash = $1, tx_signer = $2, tx_nonce = $3, batch_index = u.position - 1, updated_at = now()
           FROM unnest($4::uuid[]) WITH ORDINALITY AS u(id, position)
          WHERE a.id = u.id AND a.status = 'waiting_broadcast'
          RETURNING a.id, a.request_id`,
        [signed.hash, signer, signed.nonce.toString(), actions.map((action) => action.id)],
      )) as [{ id: string; request_id: string | null }[], number];
      if (rowCount(claimed) !== actions.length) throw new Error("actions changed while their transaction was signed");
      await manager.query(`UPDATE chain_signers SET next_nonce = next_nonce + 1, updated_at = now() WHERE address = $1`, [signer]);
      return { ...signed, carried: claimed[0].map((row) => ({ id: row.id, requestId: row.request_id })) };
    });
  }

  /** A fee bump: another attempt at the same nonce, carrying the same actions. */
  async persistReplacement(previous: SignedTransaction, replacement: Omit<SignedTransaction, "id" | "attempt">): Promise<SignedTransaction> {
    const signed: SignedTransaction = { ...replacement, id: uuidv7(), attempt: previous.attempt + 1 };
    await this.dataSource.transaction(async (manager) => {
      await this.insertTransaction(manager, signed);
      await manager.query(`UPDATE chain_actions SET tx_hash = $1, updated_at = now() WHERE tx_signer = $2 AND tx_nonce = $3 AND status = 'pending'`, [
        signed.hash,
        signed.signer,
        signed.nonce.toString(),
      ]);
    });
    return signed;
  }

  async markBroadcast(id: string): Promise<void> {
    await this.dataSource.query(`UPDATE chain_transactions SET status = 'broadcast', broadcast_at = now(), updated_at = now() WHERE id = $1 AND status = 'signed'`, [id]);
  }

  async markMined(id: string, blockNumber: number, blockHash: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chain_transactions SET status = 'mined', block_number = $2, block_hash = $3, updated_at = now() WHERE id = $1 AND status IN ('signed', 'broadcast', 'mined')`,
      [id, blockNumber, blockHash],
    );
  }

  /** A receipt that vanished (a reorg): the transaction is waiting to be mined again, sent again now. */
  async markUnmined(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE chain_transactions SET status = 'broadcast', block_number = NULL, block_hash = NULL, broadcast_at = now(), updated_at = now() WHERE id = $1 AND status = 'mined'`,
      [id],
    );
  }

  /** Attempts not yet final, by nonce then attempt. */
  async openTransactions(signer: string): Promise<OpenTransaction[]> {
    const rows = (await this.dataSource.query(
      `SELECT * FROM chain_transactions WHERE signer = $1 AND status IN ('signed', 'broadcast', 'mined') ORDER BY nonce, attempt`,
      [signer],
    )) as TransactionRow[];
    return rows.map(toOpenTransaction);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(work);
  }

  private async insertTransaction(manager: EntityManager, tx: SignedTransaction): Promise<void> {
    await manager.query(
      `INSERT INTO chain_transactions (id, signer, chain_id, nonce, attempt, tx_hash, raw_tx, gas_limit, max_fee_per_gas, max_priority_fee_per_gas, item_count, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'signed')`,
      [
        tx.id,
        tx.signer,
        tx.chainId.toString(),
        tx.nonce.toString(),
        tx.attempt,
        tx.hash,
        tx.raw,
        tx.gasLimit.toString(),
        tx.maxFeePerGas.toString(),
        tx.maxPriorityFeePerGas.toString(),
        tx.itemCount,
      ],
    );
  }
}

function toOpenTransaction(row: TransactionRow): OpenTransaction {
  return {
    id: row.id,
    signer: row.signer,
    chainId: BigInt(row.chain_id),
    nonce: BigInt(row.nonce),
    attempt: row.attempt,
    hash: row.tx_hash,
    raw: row.raw_tx,
    gasLimit: BigInt(row.gas_limit),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    itemCount: row.item_count,
    status: row.status,
    broadcastAt: row.broadcast_at,
    createdAt: row.created_at,
  };
}

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL with [rows, count]. */
function rowCount(result: unknown): number {
  return Array.isArray(result) && typeof result[1] === "number" ? result[1] : Array.isArray(result) ? result.length : 0;
}

import { Wallet } from "ethers";
import type { Pool } from "pg";

interface SignerRow {
  signer: string;
  confirmed_actions: number;
  refused_actions: number;
  confirmed_txs: number;
  attempts: number;
}

interface SenderRow {
  sender: string;
  attempts: number;
  confirmed_txs: number;
  confirmed_items: number;
  signers: string[];
}

/**
 * Throughput per signer: the actions confirmed in each signer's confirmed transactions (chain_actions
 * point at theirs by tx_signer and tx_nonce), per second of the run (load + drain), beside the items the
 * registry refused in them and the transactions it took (signed attempts include fee bumps and
 * re-sends). `signerKeys` in the service's order: a signer is named by its place, #1 to #N.
 */
export async function printSignerThroughput(db: Pool, signerKeys: string[], runSeconds: number): Promise<void> {
  const order = signerKeys.map((key) => new Wallet(key).address.toLowerCase());
  const rows = (
    await db.query<SignerRow>(`
      SELECT s.address AS signer,
             coalesce(a.confirmed, 0)::int AS confirmed_actions, coalesce(a.refused, 0)::int AS refused_actions,
             coalesce(t.confirmed, 0)::int AS confirmed_txs, coalesce(t.attempts, 0)::int AS attempts
        FROM chain_signers s
        LEFT JOIN (SELECT signer, count(*) FILTER (WHERE status = 'confirmed') AS confirmed, count(*) AS attempts
                     FROM chain_transactions GROUP BY signer) t ON t.signer = s.address
        LEFT JOIN (SELECT t.signer, count(*) FILTER (WHERE a.status = 'confirmed') AS confirmed, count(*) FILTER (WHERE a.status = 'error') AS refused
                     FROM chain_actions a
                     JOIN chain_transactions t ON t.signer = a.tx_signer AND t.nonce = a.tx_nonce AND t.status = 'confirmed'
                    GROUP BY t.signer) a ON a.signer = s.address`)
  ).rows;
  const total = rows.reduce((sum, row) => sum + row.confirmed_actions, 0);
  const place = (address: string) => order.indexOf(address.toLowerCase()) + 1;
  console.log(`\nThroughput per signer (actions confirmed in its confirmed transactions; per second of load + drain, ${runSeconds.toFixed(1)} s):`);
  console.table(
    rows
      .sort((a, b) => place(a.signer) - place(b.signer))
      .map((row) => ({
        signer: `#${place(row.signer)} ${row.signer}`,
        "confirmed actions": row.confirmed_actions,
        "share %": total ? ((100 * row.confirmed_actions) / total).toFixed(1) : "-",
        "confirmed actions/s": (row.confirmed_actions / runSeconds).toFixed(1),
        "refused on chain": row.refused_actions,
        "confirmed txs": row.confirmed_txs,
        "actions/tx": row.confirmed_txs ? (row.confirmed_actions / row.confirmed_txs).toFixed(0) : "-",
        "signed attempts": row.attempts,
      })),
  );
  const unused = order.filter((address) => !rows.some((row) => row.signer.toLowerCase() === address));
  if (unused.length) console.log(`Signers that never sent: ${unused.map((address) => `#${place(address)} ${address}`).join(", ")}`);
}

/** Which worker process signed how much (bench_transaction_senders, stack/sender-tracking.ts). */
export async function printSenders(db: Pool, signerKeys: string[]): Promise<void> {
  const order = signerKeys.map((key) => new Wallet(key).address.toLowerCase());
  const rows = (
    await db.query<SenderRow>(`
      SELECT s.sender, count(*)::int AS attempts, count(*) FILTER (WHERE t.status = 'confirmed')::int AS confirmed_txs,
             coalesce(sum(t.item_count) FILTER (WHERE t.status = 'confirmed'), 0)::int AS confirmed_items,
             array_agg(DISTINCT t.signer) AS signers
        FROM bench_transaction_senders s JOIN chain_transactions t ON t.id = s.tx_id
       GROUP BY s.sender ORDER BY s.sender`)
  ).rows;
  console.log("\nTransactions by the worker process that signed them (its PostgreSQL application_name):");
  console.table(
    rows.map((row) => ({
      process: row.sender,
      "signed attempts": row.attempts,
      "confirmed txs": row.confirmed_txs,
      "items in confirmed txs": row.confirmed_items,
      signers: row.signers
        .map((address) => order.indexOf(address.toLowerCase()) + 1)
        .sort((a, b) => a - b)
        .map((index) => `#${index}`)
        .join(" "),
    })),
  );
}

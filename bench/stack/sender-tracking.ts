import { Client } from "pg";

/**
 * Which service process signed each transaction: the service records no such thing, so the run adds
 * a table and a trigger of its own to its throwaway database (after the api's migrations, before the
 * workers start) that copy each new chain_transactions row's id with the inserting session's
 * application_name — the process's PGAPPNAME (ServiceSupervisor): worker-1, worker-2.restart-1, …
 */
export async function trackTransactionSenders(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`
      CREATE TABLE bench_transaction_senders (tx_id uuid NOT NULL, sender text NOT NULL);
      CREATE FUNCTION bench_record_transaction_sender() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO bench_transaction_senders (tx_id, sender) VALUES (NEW.id, coalesce(current_setting('application_name', true), '?'));
        RETURN NEW;
      END $$;
      CREATE TRIGGER bench_record_transaction_sender AFTER INSERT ON chain_transactions
        FOR EACH ROW EXECUTE FUNCTION bench_record_transaction_sender();`);
  } finally {
    await client.end();
  }
}

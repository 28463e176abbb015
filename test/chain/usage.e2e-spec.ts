import { execFile } from "node:child_process";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { createRegistryClient, type UsageStatement } from "../../client/src";
import { OrganizationsService } from "../../src/auth/organizations.service";
import { useChainApp } from "../support/chain-app";
import { actionPromises, allSettled, type Api, sqlOf, uid } from "../support/chain-e2e";
import { scrapeMetrics, total } from "../support/metrics-scrape";

/**
 * The usage and gas statement end to end: three organizations' actions carried together in one
 * batch (the writer waits BATCH_MAX_WAIT_MS for a batch to fill), then one organization's alone;
 * each organization's GET /api/v1/usage, the operator's `npm run cli -- usage report` and the gas
 * counter on /metrics, against the receipts read from the chain itself.
 */
const chainApp = useChainApp({ env: { BATCH_MAX_WAIT_MS: "3000" } });

const ROOT = path.resolve(__dirname, "../..");
const SALES = 12;
const CHECK_INS = 4;

interface Organization {
  ticketeerId: string;
  api: Api;
  promises: string[];
}

/** An event, its sales and some check-ins, in one /stream. */
async function streamActions(organization: Organization): Promise<void> {
  const eventId = uid("event");
  const tickets = Array.from({ length: SALES }, () => uid("t"));
  const answer = await organization.api.post("/stream", [
    { action: "newEvent", data: { eventId, currency: "EUR", callbackUrl: "https://integrator.example.com/cb" } },
    ...tickets.map((ticketId) => ({ action: "soldTicket", data: { eventId, ticketId, price: "10.00" } })),
    ...tickets.slice(0, CHECK_INS).map((ticketId) => ({ action: "scannedTicket", data: { ticketId } })),
  ]);
  organization.promises.push(...actionPromises(answer));
}

/** The receipts of the ledger's final transactions, read from the chain: their gas and fee. */
async function receiptsOnChain(hashes: readonly string[]): Promise<{ gas: bigint; fee: bigint }> {
  let gas = 0n;
  let fee = 0n;
  for (const hash of hashes) {
    const receipt = await chainApp.chain.provider.getTransactionReceipt(hash);
    if (!receipt) throw new Error(`no receipt on chain for ${hash}`);
    gas += receipt.gasUsed;
    fee += receipt.gasUsed * receipt.gasPrice;
  }
  return { gas, fee };
}

function usageReport(from: string, to: string): Promise<{ organizations: UsageStatement[]; totals: UsageStatement["totals"] }> {
  const env = { ...process.env, ...chainApp.sameLedgerEnv };
  return new Promise((resolve, reject) =>
    execFile(
      "npm",
      ["run", "--silent", "cli", "--", "usage", "report", "--from", from, "--to", to, "--group-by", "event", "--json"],
      { cwd: ROOT, env, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout))),
    ),
  );
}

describe("the usage statement against the chain", () => {
  it("splits each receipt among several organizations' items of one batch exactly: the statements add up to the receipts", async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const organizations: Organization[] = [{ ticketeerId: chainApp.ticketeerId, api: chainApp.api, promises: [] }];
    for (const created of await Promise.all([chainApp.testApp.client(), chainApp.testApp.client()])) organizations.push({ ...created, promises: [] });

    // Within BATCH_MAX_WAIT_MS of each other: the writer carries them in one batch.
    await Promise.all(organizations.map(streamActions));
    const together = await Promise.all(organizations.map((organization) => allSettled(organization.api, organization.promises, 120_000)));
    // Then the first organization alone, in a batch of its own.
    const alone = organizations[0].promises.length;
    await streamActions(organizations[0]);
    const later = await allSettled(organizations[0].api, organizations[0].promises.slice(alone), 120_000);
    const statuses = organizations.map((_, index) => (index === 0 ? [...together[0], ...later] : together[index]));
    for (const status of statuses.flat()) expect(status.status, JSON.stringify(status)).toBe("confirmed");

    const organizationsOfHash = new Map<string, Set<string>>();
    statuses.forEach((list, index) => {
      for (const status of list)
        organizationsOfHash.set(status.txHash, (organizationsOfHash.get(status.txHash) ?? new Set()).add(organizations[index].ticketeerId));
    });
    expect(Math.max(...[...organizationsOfHash.values()].map((carried) => carried.size)), "a batch carried every organization's actions").toBe(3);

    // Every transaction the ledger closed, and only those, carried these actions: their receipts, read from the chain.
    const closed = await sqlOf(chainApp.testApp)<{ tx_hash: string }>(`SELECT tx_hash FROM chain_transactions WHERE status IN ('confirmed', 'reverted')`);
    expect(closed.map((row) => row.tx_hash).sort()).toEqual([...organizationsOfHash.keys()].sort());
    const receipts = await receiptsOnChain([...organizationsOfHash.keys()]);

    const to = new Date(Date.now() + 60_000).toISOString();
    const statements: UsageStatement[] = [];
    for (const organization of organizations) {
      const registry = createRegistryClient({ baseUrl: chainApp.testApp.baseUrl, apiKey: await keyOf(organization.ticketeerId) });
      const { data, response } = await registry.GET("/api/v1/usage", { params: { query: { from, to, groupBy: "event" } } });
      expect(response.status).toBe(200);
      statements.push(data!);
    }

    const sum = (values: readonly string[]) => values.reduce((all, value) => all + BigInt(value), 0n);
    expect(sum(statements.map((statement) => statement.totals.gas))).toBe(receipts.gas);
    expect(sum(statements.map((statement) => statement.totals.feeWei))).toBe(receipts.fee);
    statements.forEach((statement, index) => {
      const hashes = new Set(statuses[index].map((status) => status.txHash));
      expect(statement.ticketeerId).toBe(organizations[index].ticketeerId);
      expect(statement.totals).toMatchObject({ accepted: statuses[index].length, confirmed: statuses[index].length, failed: 0, transactions: hashes.size });
      expect(BigInt(statement.totals.gas)).toBeGreaterThan(0n);
      expect(statement.groups).toHaveLength(index === 0 ? 2 : 1);
      for (const group of statement.groups) {
        expect(group.actions.map((line) => [line.kind, line.accepted, line.confirmed])).toEqual([
          ["newEvent", 1, 1],
          ["sold", SALES, SALES],
          ["scanned", CHECK_INS, CHECK_INS],
        ]);
        // A registration costs more than a sale, a sale more than a check-in: the split follows the planned gas.
        const perItem = group.actions.map((line) => BigInt(line.gas) / BigInt(line.confirmed));
        expect(perItem[0]).toBeGreaterThan(perItem[1]);
        expect(perItem[1]).toBeGreaterThan(perItem[2]);
      }
    });

    // The operator's report: the same statements, and their sum is the receipts'.
    const report = await usageReport(from, to);
    for (const statement of statements) expect(report.organizations.find((entry) => entry.ticketeerId === statement.ticketeerId)).toEqual(statement);
    expect(report.totals).toMatchObject({ gas: receipts.gas.toString(), feeWei: receipts.fee.toString(), transactions: organizationsOfHash.size });

    // The gas counter by organization says the same.
    const { samples } = await scrapeMetrics(chainApp.testApp.opsUrl);
    for (const statement of statements) {
      expect(total(samples, "ticket_registry_organization_gas_total", { organization: statement.ticketeerId })).toBe(Number(statement.totals.gas));
    }
  }, 300_000);
});

/** Another key of the organization, for the typed client. */
async function keyOf(ticketeerId: string): Promise<string> {
  return (await chainApp.testApp.app.get(OrganizationsService).issueKey(ticketeerId, "usage")).key;
}

import { DataSource, type Logger } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { uuidv7 } from "../../src/common/uuid-v7";
import { dataSourceOptions } from "../../src/database/data-source-options";
import { ENTITIES } from "../../src/entities";
import { EventsStore } from "../../src/events/events.store";
import { ActionCancellationStore } from "../../src/ledger/cancellation/action-cancellation.store";
import { ChainActionsStore } from "../../src/ledger/chain-actions.store";
import { ActionChangesStore, CHANGE_RETENTION_DAYS } from "../../src/ledger/live/action-changes.store";
import { TicketsStore } from "../../src/tickets/tickets.store";
import { LedgerMetadataStore } from "../../src/tokens/ledger-metadata.store";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * The statements behind the read routes (`GET /api/v1/tickets/{id}`, `GET /api/v1/actions/{promise}`, `/tokens/{id}`)
 * and the worker's periodic ones reach their rows through an index, so they cost the same on a
 * ledger of a thousand tickets and of a billion: with sequential scans disabled, PostgreSQL still
 * plans one only where no index can serve the statement. A partial index the statement's condition
 * does not imply is such a case.
 */
const LEDGER_TABLES = ["tickets", "chain_actions", "events"];

interface Statement {
  sql: string;
  parameters: unknown[];
}

let database: TestDatabase;
let dataSource: DataSource;
const statements: Statement[] = [];

const recorder: Logger = {
  logQuery: (sql, parameters) => void statements.push({ sql, parameters: Array.isArray(parameters) ? parameters : [] }),
  logQueryError: () => undefined,
  logQuerySlow: () => undefined,
  logSchemaBuild: () => undefined,
  logMigration: () => undefined,
  log: () => undefined,
};

beforeAll(async () => {
  database = await createTestDatabase();
  dataSource = await new DataSource({ ...dataSourceOptions(database.url, ENTITIES), logging: ["query"], logger: recorder }).initialize();
});

afterAll(async () => {
  await dataSource?.destroy();
  await database?.drop();
});

/** The statements `read` sends. */
async function statementsOf(read: () => Promise<unknown>): Promise<Statement[]> {
  statements.length = 0;
  await read();
  return statements.filter((statement) => /^\s*SELECT/i.test(statement.sql));
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  Plans?: PlanNode[];
}

/** Every node of a statement's plan, planned with sequential scans disabled. */
async function planNodes({ sql, parameters }: Statement): Promise<PlanNode[]> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query(`SET enable_seqscan = off`);
    const [{ "QUERY PLAN": plan }] = await runner.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
    const nodes: PlanNode[] = [];
    const walk = (node: PlanNode) => {
      nodes.push(node);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan[0].Plan);
    return nodes;
  } finally {
    await runner.release();
  }
}

/** The ledger tables a statement's plan reads by a sequential scan while they are disabled. */
async function scannedTables(statement: Statement): Promise<string[]> {
  return (await planNodes(statement))
    .filter((node) => node["Node Type"] === "Seq Scan" && LEDGER_TABLES.includes(node["Relation Name"] ?? ""))
    .map((node) => node["Relation Name"] as string);
}

/** Whether every statement of each read reaches the ledger tables through indexes: the reads' names and what they scanned. */
async function scansOf(reads: Record<string, () => Promise<unknown>>): Promise<Record<string, string[]>> {
  const scanned: Record<string, string[]> = {};
  for (const [name, read] of Object.entries(reads)) {
    const sent = await statementsOf(read);
    expect(sent.length, name).toBeGreaterThan(0);
    scanned[name] = (await Promise.all(sent.map(scannedTables))).flat();
  }
  return scanned;
}

function noScans(reads: Record<string, unknown>): Record<string, string[]> {
  return Object.fromEntries(Object.keys(reads).map((name) => [name, []]));
}

describe("the read routes' statements", () => {
  it("find tickets, events and actions through indexes", async () => {
    const [{ id: organizationId }] = await dataSource.query(`INSERT INTO organizations (ticketeer_id, name) VALUES ('plans', 'plans') RETURNING id`);
    const eventRef = uuidv7();
    const ticketRef = uuidv7();
    const actionId = uuidv7();
    await dataSource.query(
      `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, 'event-p', 'EUR', 'https://p.example.com')`,
      [eventRef, organizationId],
    );
    await dataSource.query(
      `INSERT INTO tickets (id, organization_id, event_ref, ticket_id, serial, token_id, price, order_time) VALUES ($1, $2, $3, 'ticket-p', 1, 18446744073709551617, '10.00', 0)`,
      [ticketRef, organizationId, eventRef],
    );
    await dataSource.query(
      `INSERT INTO chain_actions (id, organization_id, kind, requested_as, event_ref, ticket_ref, status) VALUES ($1, $2, 'sold', 'soldTicket', $3, $4, 'confirmed')`,
      [actionId, organizationId, eventRef, ticketRef],
    );
    const actions = new ChainActionsStore(dataSource);
    const reads: Record<string, () => Promise<unknown>> = {
      "ticket by id": () => new TicketsStore(dataSource.manager).findByOrganizationAndTicketId(organizationId, "ticket-p"),
      "events of tickets": () => new EventsStore(dataSource.manager).findByIds([eventRef]),
      "actions of tickets": () => actions.listForTickets([ticketRef]),
      "cancellations confirmed": () => actions.confirmedCancellations([eventRef]),
      "action by promise": () => actions.findByOrganizationAndId(organizationId, actionId),
      "ids of an action's subject": () => actions.subjectIdsOf({ eventRef, ticketRef }),
      "a token's ledger metadata": () => new LedgerMetadataStore(dataSource).metadataOf(18446744073709551617n),
    };
    expect(await scansOf(reads)).toEqual(noScans(reads));
  });
});

describe("a cancellation's statements", () => {
  it("look for an event registration's unused serials through the token id index", async () => {
    const [{ id: organizationId }] = await dataSource.query(`INSERT INTO organizations (ticketeer_id, name) VALUES ('plans-c', 'plans-c') RETURNING id`);
    const eventRef = uuidv7();
    const actionId = uuidv7();
    await dataSource.query(
      `INSERT INTO events (id, organization_id, event_id, currency, callback_url) VALUES ($1, $2, 'event-c', 'EUR', 'https://c.example.com')`,
      [eventRef, organizationId],
    );
    await dataSource.query(
      `INSERT INTO chain_actions (id, organization_id, kind, requested_as, event_ref, status) VALUES ($1, $2, 'newEvent', 'newEvent', $3, 'waiting_broadcast')`,
      [actionId, organizationId, eventRef],
    );
    const cancellations = new ActionCancellationStore(dataSource);
    const reads: Record<string, () => Promise<unknown>> = {
      "cancelling an event registration": async () => expect(await cancellations.cancel(organizationId, actionId)).toEqual({ outcome: "cancelled" }),
    };
    expect(await scansOf(reads)).toEqual(noScans(reads));
  });
});

describe("the worker's periodic statements", () => {
  it("count what waits through the partial indexes of its statuses", async () => {
    const actions = new ChainActionsStore(dataSource);
    const reads: Record<string, () => Promise<unknown>> = {
      "the sweep's count of old waiting actions": () => actions.countWaitingOlderThan(10_000),
    };
    expect(await scansOf(reads)).toEqual(noScans(reads));
  });
});

describe("the change log's pruning", () => {
  it("reads the log's oldest entries along its primary key, not every aged entry for each batch", async () => {
    const [{ id: organizationId }] = await dataSource.query(`INSERT INTO organizations (ticketeer_id, name) VALUES ('plans-p', 'plans-p') RETURNING id`);
    // Entries are written in time order: the other tests' younger ones would come first.
    await dataSource.query(`DELETE FROM chain_action_changes`);
    // The statistics say nothing is aged, as after an hour in which a busy hour's entries aged: the
    // plan must not depend on them.
    await dataSource.query(
      `INSERT INTO chain_action_changes (action_id, organization_id, event_ref, status)
       SELECT gen_random_uuid(), $1, gen_random_uuid(), 'confirmed' FROM generate_series(1, 1000)`,
      [organizationId],
    );
    await dataSource.query(`ANALYZE chain_action_changes`);
    await dataSource.query(`UPDATE chain_action_changes SET changed_at = changed_at - make_interval(days => $1)`, [CHANGE_RETENTION_DAYS + 1]);
    statements.length = 0;
    expect(await new ActionChangesStore(dataSource).prune(200)).toBe(1000);
    const deletes = statements.filter((statement) => /^\s*DELETE/i.test(statement.sql));
    expect(deletes.length).toBeGreaterThan(0);
    for (const statement of deletes) expect(await scansOfTable(statement, "chain_action_changes")).toEqual(["Index Scan using chain_action_changes_pkey"]);
  });
});

/** How a statement's plan reads `table`, each read once: its node type and index. */
async function scansOfTable(statement: Statement, table: string): Promise<string[]> {
  const reads = (await planNodes(statement))
    .filter((node) => node["Relation Name"] === table && node["Node Type"] !== "ModifyTable")
    .map((node) => `${node["Node Type"]}${node["Index Name"] ? ` using ${node["Index Name"]}` : ""}`);
  return [...new Set(reads)];
}

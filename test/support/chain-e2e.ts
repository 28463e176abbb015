import { ZeroAddress } from "ethers";
import { DataSource } from "typeorm";

import type { ApiClient as Api } from "./api-client";
import { CALLBACK_URL, id as uid } from "./fixtures";
import { eventually, type TestChain } from "./test-chain";
import type { TestApp } from "./test-app";

/** Shared helpers of the end-to-end chain tests (test/chain). */

export type { ApiClient as Api } from "./api-client";
export { CALLBACK_URL, id as uid, WALLET } from "./fixtures";

/** The statuses an action ends in. */
export const FINAL_STATUSES = ["confirmed", "error", "no_broadcast_required", "cancelled"];

/** SQL against the test app's own database. */
export function sqlOf(testApp: TestApp) {
  const dataSource = testApp.app.get(DataSource);
  return <T = any>(text: string, params: unknown[] = []) => dataSource.query<T[]>(text, params);
}

/** GET /api/v1/actions/{promise} until the action is final; its status body. */
export async function settled(api: Api, promise: string, timeoutMs = 60_000): Promise<any> {
  return eventually(
    async () => {
      const answer = await api.get(`/api/v1/actions/${promise}`);
      return FINAL_STATUSES.includes(answer.body?.status) ? answer.body : undefined;
    },
    timeoutMs,
    `action ${promise} to be final`,
  );
}

/** Registers a new event and waits until it is confirmed on chain; its eventId. */
export async function registeredEvent(api: Api, ticketeerId: string): Promise<string> {
  const eventId = uid("event");
  const created = await api.post("/api/v1/events", { eventId, ticketeerId, currency: "EUR", callbackUrl: CALLBACK_URL });
  const status = (await settled(api, created.body.txPromise)).status;
  if (status !== "confirmed") throw new Error(`event ${eventId} ended ${status}, not confirmed: ${JSON.stringify(created.body)}`);
  return eventId;
}

export async function allSettled(api: Api, promises: string[], timeoutMs = 60_000): Promise<any[]> {
  return Promise.all(promises.map((promise) => settled(api, promise, timeoutMs)));
}

/** The promises of a per-action endpoint's answer, asserting every item was accepted. */
export function txPromises(answer: { status: number; body: any }): string[] {
  if (answer.status !== 200 || !Array.isArray(answer.body) || answer.body.some((item: any) => item.status !== "success")) {
    throw new Error(`not every item was accepted: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.map((item: { txPromise: string }) => item.txPromise);
}

/** The promises of a /stream answer, asserting every action was accepted. */
export function actionPromises(answer: { status: number; body: any }): string[] {
  if (answer.status !== 200 || answer.body?.data?.some((item: any) => item.status !== "success")) {
    throw new Error(`not every action was accepted: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  return answer.body.data.map((item: { actionPromise: string }) => item.actionPromise);
}

/** Ledger rows of these actions, in acceptance order. */
export async function actionRows(
  testApp: TestApp,
  ids: string[],
): Promise<{ id: string; status: string; tx_hash: string | null; error_code: string | null }[]> {
  return sqlOf(testApp)(`SELECT id, status, tx_hash, error_code, error_message, block_number FROM chain_actions WHERE id = ANY($1::uuid[]) ORDER BY seq`, [
    ids,
  ]);
}

/** Waits until every one of these actions has `status` in the ledger (a single query per look, for many actions). */
export async function waitForLedgerStatus(testApp: TestApp, ids: string[], status: string, timeoutMs = 60_000): Promise<void> {
  await eventually(
    async () => {
      const rows = await actionRows(testApp, ids);
      return rows.length === ids.length && rows.every((row) => row.status === status) ? true : undefined;
    },
    timeoutMs,
    `${ids.length} actions to be ${status}`,
  );
}

/** Every mint of the registry: Transfer logs from the zero address. */
export async function mints(chain: TestChain): Promise<{ tokenId: bigint; to: string; txHash: string }[]> {
  const logs = await chain.registry.queryFilter(chain.registry.filters.Transfer(ZeroAddress), 0, "latest");
  return logs.map((log) => ({ tokenId: log.args.tokenId, to: log.args.to, txHash: log.transactionHash }));
}

/** The app's tickets' tokenIds by ticketId (of the tickets that exist: not released), in the order of `ticketIds`. */
export async function tokenIds(testApp: TestApp, ticketIds: string[]): Promise<Map<string, bigint>> {
  const rows = await sqlOf(testApp)<{ ticket_id: string; token_id: string }>(
    `SELECT ticket_id, token_id FROM tickets WHERE ticket_id = ANY($1::text[]) AND released_at IS NULL`,
    [ticketIds],
  );
  const byId = new Map(rows.map((row) => [row.ticket_id, BigInt(row.token_id)]));
  return new Map(ticketIds.filter((ticketId) => byId.has(ticketId)).map((ticketId) => [ticketId, byId.get(ticketId)!]));
}

/** The registry index the service gave an event. */
export async function eventIndexOf(testApp: TestApp, eventId: string): Promise<bigint> {
  const [row] = await sqlOf(testApp)<{ event_index: string }>(`SELECT event_index FROM events WHERE event_id = $1`, [eventId]);
  if (!row) throw new Error(`no event ${eventId}`);
  return BigInt(row.event_index);
}

/** The writer's transactions (every attempt), oldest nonce and attempt first. */
export async function chainTransactions(testApp: TestApp): Promise<any[]> {
  return sqlOf(testApp)(`SELECT * FROM chain_transactions ORDER BY nonce, attempt`);
}

/** The outbox rows of these actions. */
export async function callbackRows(testApp: TestApp, ids: string[]): Promise<{ action_id: string; payload: Record<string, any> }[]> {
  return sqlOf(testApp)(`SELECT action_id, payload FROM callbacks WHERE action_id = ANY($1::uuid[])`, [ids]);
}

/** The registry's view of a ticket (`ticket(tokenId)`), as a plain object. */
export async function ticketView(chain: TestChain, tokenId: bigint) {
  const view = await chain.registry.ticket(tokenId);
  const { eventIndex, serial, eventKey, holder, checkedIn, invalidated, claimed, resales } = view;
  return { eventIndex, serial, eventKey, holder, checkedIn, invalidated, claimed, resales };
}

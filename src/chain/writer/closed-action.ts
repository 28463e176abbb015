/** An action whose transaction was closed, for the log lines: its new status and, for an error, the code. */
export interface ClosedAction {
  id: string;
  requestId: string | null;
  status: "confirmed" | "error" | "waiting_broadcast";
  errorCode: string | null;
  /** When the action was accepted. */
  acceptedAt: Date;
}

/** What a store's `UPDATE chain_actions AS a ... RETURNING` lists, for closedActionsOf to read. */
export const CLOSED_ACTION_COLUMNS = "a.id, a.request_id, a.status, a.error_code, a.created_at";

interface ClosedActionRow {
  id: string;
  request_id: string | null;
  status: ClosedAction["status"];
  error_code: string | null;
  created_at: Date;
}

/** TypeORM answers an UPDATE ... RETURNING on PostgreSQL with [rows, count]: the row type for `query<T>()`. */
export type ClosedActionsResult = [ClosedActionRow[], number];

/** The actions such an UPDATE closed, from its result. */
export function closedActionsOf([rows]: ClosedActionsResult): ClosedAction[] {
  return rows.map((row) => ({ id: row.id, requestId: row.request_id, status: row.status, errorCode: row.error_code, acceptedAt: row.created_at }));
}

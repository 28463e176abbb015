import type { ActionKind, PlannedAction } from "./action-planner";

/** One HTTP request of the load and the planned actions it carries, in order. */
export interface PlannedRequest {
  /** The latency table's row: the path, and for /stream the fact that it is mixed. */
  route: string;
  path: string;
  body: unknown;
  actions: PlannedAction[];
}

/** What the service answered for one action. */
export type ActionOutcome = { status: "accepted"; promise: string } | { status: "refused"; code: string } | { status: "unanswered"; reason: string };

const STREAM_NAMES: Record<ActionKind, string[]> = {
  newEvent: ["newEvent"],
  updateEvent: ["updateEvent"],
  sold: ["soldTicket"],
  resold: ["resoldTicket"],
  // Both names of a check-in, in turn.
  scanned: ["scannedTicket", "checkedInTicket"],
  invalidated: ["invalidatedTicket"],
  updateTicket: ["updateTicket"],
  claimed: ["claimedTicket"],
};

/** Ticket endpoints; a check-in goes to /scanned and /checkedin in turn. */
const TICKET_PATHS: Partial<Record<ActionKind, string[]>> = {
  sold: ["/api/v1/sold"],
  resold: ["/api/v1/resold"],
  scanned: ["/api/v1/scanned", "/api/v1/checkedin"],
  invalidated: ["/api/v1/invalidated"],
};
const TICKETS_PER_REQUEST = 100;

let turn = 0;
const inTurn = <T>(choices: T[]): T => choices[turn++ % choices.length];

/**
 * Splits a tick's actions between one mixed /stream request and the per-action endpoints
 * (POST /api/v1/events and the ticket endpoints), about half each for the kinds that have an endpoint.
 */
export function planRequests(actions: PlannedAction[], ticketeerId: string): PlannedRequest[] {
  const stream: PlannedAction[] = [];
  const byPath = new Map<string, PlannedAction[]>();
  const requests: PlannedRequest[] = [];
  for (const action of actions) {
    const paths = TICKET_PATHS[action.kind];
    const toEndpoint = (action.kind === "newEvent" || paths !== undefined) && Math.random() < 0.5;
    if (!toEndpoint) stream.push(action);
    else if (action.kind === "newEvent")
      requests.push({ route: "/api/v1/events", path: "/api/v1/events", body: { ...action.data, ticketeerId }, actions: [action] });
    else {
      const path = inTurn(paths as string[]);
      byPath.set(path, [...(byPath.get(path) ?? []), action]);
    }
  }
  for (const [path, group] of byPath) {
    for (let offset = 0; offset < group.length; offset += TICKETS_PER_REQUEST) {
      const chunk = group.slice(offset, offset + TICKETS_PER_REQUEST);
      requests.push({ route: path, path, body: chunk.map((action) => action.data), actions: chunk });
    }
  }
  if (stream.length > 0) {
    requests.push({
      route: "/stream (mixed)",
      path: "/stream",
      body: stream.map((action) => ({ action: inTurn(STREAM_NAMES[action.kind]), data: action.data })),
      actions: stream,
    });
  }
  return requests;
}

/**
 * The service's answer as outcomesOf reads it: POST /api/v1/events answers one item, the ticket endpoints an
 * array of items, /stream `{ data: [items] }`. An accepted item carries its promise (txPromise, in /stream
 * actionPromise), a refused one its error. An unexpected answer may lack any field or not be an object at all,
 * hence `?.` throughout.
 */
interface Answer {
  status?: string;
  txPromise?: string;
  actionPromise?: string;
  error?: { code?: string };
  data?: unknown;
}

/** The outcome of each action of `request` from the service's answer (HTTP status and parsed body). */
export function outcomesOf(request: PlannedRequest, status: number, body: unknown): ActionOutcome[] {
  const answer = body as Answer | null | undefined;
  if (request.path === "/api/v1/events") {
    // A success answer carries its txPromise.
    if (status === 200 && answer?.status === "success") return [{ status: "accepted", promise: answer.txPromise as string }];
    if (status === 400 || status === 409) return [{ status: "refused", code: answer?.error?.code ?? `http_${status}` }];
    return request.actions.map(() => ({ status: "unanswered", reason: `HTTP ${status}` }));
  }
  const items = request.path === "/stream" ? answer?.data : body;
  if (status !== 200 || !Array.isArray(items) || items.length !== request.actions.length) {
    return request.actions.map(() => ({ status: "unanswered", reason: `HTTP ${status}` }));
  }
  return (items as (Answer | null | undefined)[]).map((item) =>
    // An accepted item carries one of the two promises.
    item?.status === "success"
      ? { status: "accepted", promise: (item.txPromise ?? item.actionPromise) as string }
      : { status: "refused", code: item?.error?.code ?? "unknown" },
  );
}

import type { ActionPlanner, PlannedAction } from "./action-planner";
import type { LoadModel, ModelEvent } from "./load-model";
import type { LoadRecord } from "./load-record";
import { type ActionOutcome, outcomesOf, type PlannedRequest, planRequests } from "./request-plan";

export interface LoadTarget {
  baseUrl: string;
  apiKey: string;
  ticketeerId: string;
}

export interface LoadSettings {
  /** Actions per second. */
  rate: number;
  durationMs: number;
  tickMs: number;
  /** Open requests beyond which a tick sends nothing (its actions are counted as skipped). */
  maxInFlight: number;
  requestTimeoutMs: number;
}

/**
 * Sends the planned mix at a steady rate, open loop: every tick sends its share whether or not
 * earlier requests were answered, so a slow service shows as latency and skipped actions rather
 * than as a lower rate. Resolves once the last request is answered.
 */
export async function driveLoad(
  target: LoadTarget,
  model: LoadModel,
  planner: ActionPlanner,
  settings: LoadSettings,
  record: LoadRecord,
  onEventAccepted: (event: ModelEvent) => void,
): Promise<void> {
  const open = new Set<Promise<void>>();
  const apply = (action: PlannedAction, outcome: ActionOutcome, sentAt: number) => applyOutcome(model, record, action, outcome, sentAt, onEventAccepted);
  record.startedAt = Date.now();
  let credit = 0;
  for (let tick = 0; ; tick++) {
    const due = record.startedAt + tick * settings.tickMs;
    if (due >= record.startedAt + settings.durationMs) break;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now())));
    credit += (settings.rate * settings.tickMs) / 1000;
    const count = Math.floor(credit);
    credit -= count;
    if (open.size >= settings.maxInFlight) {
      record.skippedActions += count;
      continue;
    }
    const actions = planner.plan(count);
    record.plannedActions += actions.length;
    for (const request of planRequests(actions, target.ticketeerId)) {
      const sent = send(target, request, settings.requestTimeoutMs, record, apply).finally(() => open.delete(sent));
      open.add(sent);
    }
  }
  await Promise.all(open);
  record.endedAt = Date.now();
}

async function send(
  target: LoadTarget,
  request: PlannedRequest,
  timeoutMs: number,
  record: LoadRecord,
  apply: (action: PlannedAction, outcome: ActionOutcome, sentAt: number) => void,
): Promise<void> {
  const startedAt = Date.now();
  const started = performance.now();
  let outcomes: ActionOutcome[];
  let status: number | null = null;
  try {
    const response = await fetch(target.baseUrl + request.path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": target.apiKey },
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = response.status;
    outcomes = outcomesOf(request, response.status, parseJson(await response.text()));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    outcomes = request.actions.map(() => ({ status: "unanswered", reason }));
  }
  const answered = outcomes.some((outcome) => outcome.status !== "unanswered");
  record.requests.push({ route: request.route, startedAt, ms: performance.now() - started, actions: request.actions.length, answered, status });
  request.actions.forEach((action, index) => apply(action, outcomes[index], startedAt));
}

function applyOutcome(
  model: LoadModel,
  record: LoadRecord,
  action: PlannedAction,
  outcome: ActionOutcome,
  sentAt: number,
  onEventAccepted: (event: ModelEvent) => void,
): void {
  if (action.event) model.eventsInFlight -= 1;
  if (outcome.status === "accepted") {
    const eventId = action.event?.eventId ?? action.ticket?.event.eventId ?? (action.data.eventId as string | undefined);
    record.accepted.set(outcome.promise, { kind: action.kind, expect: action.expect, acceptedAt: Date.now(), ticketId: action.ticket?.ticketId, eventId });
    if (action.event) {
      model.events.push(action.event);
      onEventAccepted(action.event);
    }
    if (action.ticket && action.after) model.settle(action.ticket, action.after);
    return;
  }
  // A refused or unanswered action leaves its ticket or event out of the model: its state is not known for sure.
  if (outcome.status === "refused" && action.expect === "refused_receiver" && outcome.code === "invalid_field") record.intendedRefusals += 1;
  else if (outcome.status === "refused") record.refused.push({ kind: action.kind, code: outcome.code });
  else record.unanswered.push({ kind: action.kind, reason: outcome.reason, sentAt, at: Date.now() });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

import { ACTION_KINDS } from "../../common/actions";

/**
 * The notices the service sends about callbacks themselves, to webhook endpoints only:
 * `endpoint_disabled` (a receiver of the organization was disabled for failing) and
 * `callback_exhausted` (a callback used up its attempts). An endpoint's `actions` may name them.
 */
export const NOTICE_ACTIONS = ["endpoint_disabled", "callback_exhausted"] as const;
export type NoticeAction = (typeof NOTICE_ACTIONS)[number];

/** What an endpoint's `actions` may list: every callback `action`, and the notices. (`test` goes to the endpoint tested, whatever it lists.) */
export const WEBHOOK_ACTIONS: readonly string[] = [...ACTION_KINDS, ...NOTICE_ACTIONS];

/** The most endpoints one organization may have: each takes a copy of every callback it lists, so each multiplies the delivery work. */
export const MAX_WEBHOOKS_PER_ORGANIZATION = 20;

/** Why `actions` cannot be an endpoint's filter, or null. Absent (or null) means all; an empty list would take nothing, so it is refused. */
export function actionsProblem(actions: unknown): string | null {
  if (!Array.isArray(actions)) return "must be a list of callback actions, or left out for all of them";
  if (actions.length === 0) return "must name at least one callback action; leave it out (or send null) for all of them";
  for (const [index, action] of actions.entries()) {
    if (typeof action !== "string" || !WEBHOOK_ACTIONS.includes(action)) {
      return `[${index}] ${JSON.stringify(action)} is not a callback action: one of ${WEBHOOK_ACTIONS.join(", ")}`;
    }
  }
  if (new Set(actions).size !== actions.length) return "must not name an action twice";
  return null;
}

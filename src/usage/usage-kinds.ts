import { ACTION_KINDS, type ActionKind } from "../common/actions";

/**
 * The kinds a statement counts: every action an organization asks for. A transferred action is the
 * chain's news of a wallet's move, not asked for and never sent: it costs nothing and is not counted.
 */
export type UsageKind = Exclude<ActionKind, "transferred">;
export const USAGE_KINDS = ACTION_KINDS.filter((kind): kind is UsageKind => kind !== "transferred");

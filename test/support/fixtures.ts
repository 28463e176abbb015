import { randomBytes } from "node:crypto";

/** Shared values and builders for the end-to-end tests. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const CALLBACK_URL = "https://integrator.example.com/callbacks";

/** A valid EIP-55 address, its all-lowercase form (accepted) and one with a broken checksum. */
export const WALLET = "0x52908400098527886E0F7030069857D2E4169EE7";
export const WALLET_LOWERCASE = WALLET.toLowerCase();
export const WALLET_BAD_CHECKSUM = "0x52908400098527886e0F7030069857D2E4169EE7";

/** A fresh id with a readable prefix, unique across the tests of a file. */
export const id = (prefix: string) => `${prefix}-${randomBytes(5).toString("hex")}`;

/** The body of POST /api/v1/events (and, without ticketeerId, newEvent data). */
export const eventBody = (eventId: string, ticketeerId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  ticketeerId,
  eventName: "Concert",
  currency: "EUR",
  callbackUrl: CALLBACK_URL,
  ...extra,
});

export const newEventData = (eventId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  eventName: "Concert",
  currency: "EUR",
  callbackUrl: CALLBACK_URL,
  ...extra,
});

export const soldItem = (eventId: string, ticketId: string, extra: Record<string, unknown> = {}) => ({
  eventId,
  ticketId,
  orderTime: 1_750_000_000,
  price: "10.00",
  ...extra,
});

/** The keys of an object, sorted: for "exactly these fields" checks. */
export const keysOf = (value: object) => Object.keys(value).sort();

/** The accepted actions of a ticket or event view as [action, requestedAs, status]. */
export const historyOf = (view: { actions: { action: string; requestedAs: string; status: string }[] }) =>
  view.actions.map((action) => [action.action, action.requestedAs, action.status]);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can name a callback at all: anything else is answered as unknown without asking the database. */
export function isCallbackId(id: string): boolean {
  return UUID.test(id);
}

/** Whether `id` can name a webhook endpoint at all (a UUID, as callbacks are). */
export function isWebhookId(id: string): boolean {
  return UUID.test(id);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` can name a callback at all: anything else is answered as unknown without asking the database. */
export function isCallbackId(id: string): boolean {
  return UUID.test(id);
}

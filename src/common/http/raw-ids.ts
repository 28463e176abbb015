/** The id a raw item carries under `field`, echoed in its result even when the item is invalid. */
export function rawId(raw: unknown, field: "eventId" | "ticketId"): string | null {
  if (raw === null || typeof raw !== "object") return null;
  const value = (raw as Record<string, unknown>)[field];
  return typeof value === "string" ? value : null;
}

import { uuidv7 } from "../common/uuid-v7";

import type { EntityManager } from "typeorm";

import { AcceptanceConflict } from "../chain/ledger/acceptance-conflict";
import { EventEntity } from "./entities/event.entity";

export type NewEventFields = Omit<EventEntity, "id" | "organizationId" | "eventIndex" | "ticketsSold" | "createdAt" | "updatedAt">;

/**
 * The events one acceptance reads and writes, locked for the length of its transaction so that
 * concurrent requests on the same event queue up instead of racing.
 */
export class EventWorkingSet {
  private readonly byEventId = new Map<string, EventEntity>();
  private readonly created = new Set<EventEntity>();
  private readonly changed = new Set<EventEntity>();
  private reservedIndexes: bigint[] = [];

  constructor(
    private readonly manager: EntityManager,
    private readonly organizationId: string,
  ) {}

  async load(eventIds: readonly string[], newEvents: number): Promise<void> {
    if (eventIds.length > 0) {
      const rows = await this.manager
        .getRepository(EventEntity)
        .createQueryBuilder("event")
        .where("event.organization_id = :organizationId AND event.event_id = ANY(:eventIds)", { organizationId: this.organizationId, eventIds })
        .orderBy("event.id")
        .setLock("pessimistic_write")
        .getMany();
      for (const row of rows) this.byEventId.set(row.eventId, row);
    }
    if (newEvents > 0) this.reservedIndexes = await this.reserveIndexes(newEvents);
  }

  find(eventId: string): EventEntity | undefined {
    return this.byEventId.get(eventId);
  }

  create(fields: NewEventFields): EventEntity {
    const eventIndex = this.reservedIndexes.shift();
    if (eventIndex === undefined) throw new Error("more events created than reserved");
    const event = Object.assign(new EventEntity(), fields, { id: uuidv7(), organizationId: this.organizationId, eventIndex, ticketsSold: 0n });
    this.byEventId.set(event.eventId, event);
    this.created.add(event);
    return event;
  }

  /** Records that `event` changed; events created in this acceptance are inserted as they end up. */
  touch(event: EventEntity): void {
    if (!this.created.has(event)) this.changed.add(event);
  }

  async flush(): Promise<void> {
    await this.insertCreated();
    await this.updateChanged();
  }

  /** Registry indexes come from a sequence: unused ones (a refused newEvent) leave harmless gaps. */
  private async reserveIndexes(count: number): Promise<bigint[]> {
    const rows = (await this.manager.query("SELECT nextval('registry_event_index_seq') AS index FROM generate_series(1, $1)", [count])) as { index: string }[];
    return rows.map((row) => BigInt(row.index));
  }

  private async insertCreated(): Promise<void> {
    if (this.created.size === 0) return;
    const inserted = (await this.manager.query(
      `INSERT INTO events (id, organization_id, event_id, event_index, name, ticketeer_name, currency, shop_url, image_url,
                           latitude, longitude, start_time, end_time, callback_url, tickets_sold)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                            $10::float8[], $11::float8[], $12::numeric[], $13::numeric[], $14::text[], $15::bigint[])
       ON CONFLICT (organization_id, event_id) DO NOTHING
       RETURNING id`,
      this.columns([...this.created]),
    )) as unknown[];
    if (inserted.length !== this.created.size) throw new AcceptanceConflict("an event");
  }

  private async updateChanged(): Promise<void> {
    if (this.changed.size === 0) return;
    const [ids, , , , name, ticketeerName, currency, shopUrl, imageUrl, latitude, longitude, startTime, endTime, callbackUrl, ticketsSold] = this.columns([
      ...this.changed,
    ]);
    await this.manager.query(
      `UPDATE events AS e SET name = u.name, ticketeer_name = u.ticketeer_name, currency = u.currency, shop_url = u.shop_url,
              image_url = u.image_url, latitude = u.latitude, longitude = u.longitude, start_time = u.start_time,
              end_time = u.end_time, callback_url = u.callback_url, tickets_sold = u.tickets_sold, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::float8[],
                     $9::numeric[], $10::numeric[], $11::text[], $12::bigint[])
           AS u(id, name, ticketeer_name, currency, shop_url, image_url, latitude, longitude, start_time, end_time, callback_url, tickets_sold)
        WHERE e.id = u.id`,
      [ids, name, ticketeerName, currency, shopUrl, imageUrl, latitude, longitude, startTime, endTime, callbackUrl, ticketsSold],
    );
  }

  private columns(events: EventEntity[]): unknown[][] {
    return [
      events.map((e) => e.id),
      events.map((e) => e.organizationId),
      events.map((e) => e.eventId),
      events.map((e) => e.eventIndex.toString()),
      events.map((e) => e.name),
      events.map((e) => e.ticketeerName),
      events.map((e) => e.currency),
      events.map((e) => e.shopUrl),
      events.map((e) => e.imageUrl),
      events.map((e) => e.latitude),
      events.map((e) => e.longitude),
      events.map((e) => e.startTime.toString()),
      events.map((e) => e.endTime.toString()),
      events.map((e) => e.callbackUrl),
      events.map((e) => e.ticketsSold.toString()),
    ];
  }
}

import type { EntityManager } from "typeorm";

import { EventEntity } from "./entities/event.entity";

/**
 * The SQL of events. Bound to an EntityManager: the acceptance's transaction manager for writes and
 * locked reads, the data source's manager for plain reads.
 */
export class EventsRepository {
  constructor(private readonly manager: EntityManager) {}

  findByOrganizationAndEventId(organizationId: string, eventId: string): Promise<EventEntity | null> {
    return this.manager.getRepository(EventEntity).findOneBy({ organizationId, eventId });
  }

  findById(id: string): Promise<EventEntity> {
    return this.manager.getRepository(EventEntity).findOneByOrFail({ id });
  }

  /** The organization's events among `eventIds`, locked for update in id order (no deadlocks between acceptances). */
  lockForAcceptance(organizationId: string, eventIds: readonly string[]): Promise<EventEntity[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(EventEntity)
      .createQueryBuilder("event")
      .where("event.organization_id = :organizationId AND event.event_id = ANY(:eventIds)", { organizationId, eventIds })
      .orderBy("event.id")
      .setLock("pessimistic_write")
      .getMany();
  }

  /** Registry indexes come from a sequence: unused ones (a refused newEvent) leave harmless gaps. */
  async reserveRegistryIndexes(count: number): Promise<bigint[]> {
    if (count === 0) return [];
    const rows = await this.manager.query<{ index: string }[]>("SELECT nextval('registry_event_index_seq') AS index FROM generate_series(1, $1)", [count]);
    return rows.map((row) => BigInt(row.index));
  }

  /** Inserts new events; returns how many were inserted: fewer when another acceptance created one of them first. */
  async insertNew(events: readonly EventEntity[]): Promise<number> {
    if (events.length === 0) return 0;
    const inserted = await this.manager.query<unknown[]>(
      `INSERT INTO events (id, organization_id, event_id, event_index, name, ticketeer_name, currency, shop_url, image_url,
                           latitude, longitude, start_time, end_time, callback_url, tickets_sold)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                            $10::float8[], $11::float8[], $12::numeric[], $13::numeric[], $14::text[], $15::bigint[])
       ON CONFLICT (organization_id, event_id) DO NOTHING
       RETURNING id`,
      columnsOf(events),
    );
    return inserted.length;
  }

  /** Writes the accepted fields of changed events. */
  async saveChanges(events: readonly EventEntity[]): Promise<void> {
    if (events.length === 0) return;
    const [ids, , , , name, ticketeerName, currency, shopUrl, imageUrl, latitude, longitude, startTime, endTime, callbackUrl, ticketsSold] = columnsOf(events);
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
}

/** The events as one array per column, in the INSERT's column order. */
function columnsOf(events: readonly EventEntity[]): unknown[][] {
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

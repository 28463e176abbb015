import { type EntityManager, IsNull } from "typeorm";

import { retargetCallbacks } from "../ledger/outbox";
import { EventEntity } from "./entities/event.entity";

/** Serials `first` to `last` of one event, reserved for one request's sales. */
export interface SerialRange {
  first: bigint;
  last: bigint;
}

/**
 * The SQL of events. Bound to an EntityManager: the acceptance's transaction manager for writes and
 * locked reads, the data source's manager for plain reads.
 */
export class EventsStore {
  constructor(private readonly manager: EntityManager) {}

  findByOrganizationAndEventId(organizationId: string, eventId: string): Promise<EventEntity | null> {
    return this.manager.getRepository(EventEntity).findOneBy({ organizationId, eventId, releasedAt: IsNull() });
  }

  findById(id: string): Promise<EventEntity> {
    return this.manager.getRepository(EventEntity).findOneByOrFail({ id });
  }

  findByIds(ids: readonly string[]): Promise<EventEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.manager.getRepository(EventEntity).createQueryBuilder("event").where("event.id = ANY(:ids)", { ids }).getMany();
  }

  /** The organization's events among `eventIds`, locked for update in id order (no deadlocks between acceptances). */
  lockForAcceptance(organizationId: string, eventIds: readonly string[]): Promise<EventEntity[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(EventEntity)
      .createQueryBuilder("event")
      .where("event.organization_id = :organizationId AND event.event_id = ANY(:eventIds) AND event.released_at IS NULL", { organizationId, eventIds })
      .orderBy("event.id")
      .setLock("pessimistic_write")
      .getMany();
  }

  /**
   * The organization's events among `eventIds`, read without a lock: what a sale needs of its event
   * (that it exists, its ref and registry index) never changes once the event is committed.
   */
  readForAcceptance(organizationId: string, eventIds: readonly string[]): Promise<EventEntity[]> {
    if (eventIds.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(EventEntity)
      .createQueryBuilder("event")
      .where("event.organization_id = :organizationId AND event.event_id = ANY(:eventIds) AND event.released_at IS NULL", { organizationId, eventIds })
      .getMany();
  }

  /** The organization's events of these row ids, read without a lock: the events of the tickets an acceptance acts on. */
  readByRefsForAcceptance(organizationId: string, ids: readonly string[]): Promise<EventEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.manager
      .getRepository(EventEntity)
      .createQueryBuilder("event")
      .where("event.organization_id = :organizationId AND event.id = ANY(:ids)", { organizationId, ids })
      .getMany();
  }

  /**
   * Reserves `count` serials for each of the organization's events named, past its last serial, in a
   * transaction of its own (call it on the data source's manager, outside any acceptance): the
   * event's row is held for one UPDATE, not for a whole acceptance. Events that do not exist get none.
   *
   * It commits without waiting for the WAL flush (synchronous_commit off): a reservation lost in a
   * crash is harmless, because the acceptance that uses it starts after this commit and its own
   * commit flushes the WAL up to itself, this reservation included. So no ticket with a serial of a
   * lost reservation can be durable, and the serials are free to be handed out again.
   */
  async reserveSerials(organizationId: string, counts: ReadonlyMap<string, number>): Promise<Map<string, SerialRange>> {
    if (counts.size === 0) return new Map();
    // One statement in a transaction of its own (run outside any transaction, it commits as it ends):
    // the row is held for the UPDATE and its commit, never across a round trip to this process.
    // Rows locked in id order, as everywhere: no deadlock between two reservations of several events.
    // set_config(..., true) is synchronous_commit off for this transaction only.
    const rows = await this.manager.query<{ event_id: string; last: string; count: number }[]>(
      `WITH commit_mode AS MATERIALIZED (SELECT set_config('synchronous_commit', 'off', true)),
            reserved AS (
              UPDATE events AS e SET last_serial = e.last_serial + r.count
                FROM unnest($2::text[], $3::int[]) AS r(event_id, count)
               WHERE e.id IN (SELECT id FROM events WHERE organization_id = $1 AND event_id = ANY($2::text[]) AND released_at IS NULL ORDER BY id FOR NO KEY UPDATE)
                 AND e.event_id = r.event_id
              RETURNING e.event_id, e.last_serial::text AS last, r.count)
       SELECT reserved.* FROM reserved, commit_mode`,
      [organizationId, [...counts.keys()], [...counts.values()]],
    );
    return new Map(rows.map((row) => [row.event_id, { first: BigInt(row.last) - BigInt(row.count) + 1n, last: BigInt(row.last) }]));
  }

  /**
   * Records sales of events the acceptance did not lock: a row per event, inserted, so that
   * concurrent acceptances of one event never wait for each other (ticketsSoldOf adds them up).
   */
  async addTicketsSold(sales: readonly { id: string; count: bigint }[]): Promise<void> {
    if (sales.length === 0) return;
    await this.manager.query(`INSERT INTO event_sales (event_ref, count) SELECT * FROM unnest($1::uuid[], $2::bigint[])`, [
      sales.map((sale) => sale.id),
      sales.map((sale) => sale.count.toString()),
    ]);
  }

  /** The event's tickets sold: its own count (acceptances that held it locked) and the sales recorded apart. */
  async ticketsSoldOf(event: EventEntity): Promise<bigint> {
    const [row] = await this.manager.query<{ sold: string | null }[]>(`SELECT sum(count)::text AS sold FROM event_sales WHERE event_ref = $1`, [event.id]);
    return event.ticketsSold + BigInt(row?.sold ?? 0);
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
                           latitude, longitude, start_time, end_time, callback_url, tickets_sold, last_serial, cancelled_at,
                           description, ticket_image_url)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                            $10::float8[], $11::float8[], $12::numeric[], $13::numeric[], $14::text[], $15::bigint[], $16::bigint[], $17::timestamptz[],
                            $18::text[], $19::text[])
       ON CONFLICT (organization_id, event_id) WHERE released_at IS NULL DO NOTHING
       RETURNING id`,
      columnsOf(events),
    );
    return inserted.length;
  }

  /** Writes the accepted fields of changed events: events the acceptance holds locked (read with lockForAcceptance). */
  async saveChanges(events: readonly EventEntity[]): Promise<void> {
    if (events.length === 0) return;
    const [
      ids,
      ,
      ,
      ,
      name,
      ticketeerName,
      currency,
      shopUrl,
      imageUrl,
      latitude,
      longitude,
      startTime,
      endTime,
      callbackUrl,
      ticketsSold,
      lastSerial,
      cancelledAt,
      description,
      ticketImageUrl,
    ] = columnsOf(events);
    // The callbackUrl's failure state as the acceptance left it: read under the row's lock, so it
    // differs from the stored one only where an updateEvent with a callbackUrl enabled it again.
    const failingSince = events.map((event) => event.callbackFailingSince?.toISOString() ?? null);
    const disabledAt = events.map((event) => event.callbackDisabledAt?.toISOString() ?? null);
    await this.manager.query(
      `UPDATE events AS e SET name = u.name, ticketeer_name = u.ticketeer_name, currency = u.currency, shop_url = u.shop_url,
              image_url = u.image_url, latitude = u.latitude, longitude = u.longitude, start_time = u.start_time,
              end_time = u.end_time, callback_url = u.callback_url, tickets_sold = u.tickets_sold, last_serial = u.last_serial,
              cancelled_at = u.cancelled_at, callback_failing_since = u.callback_failing_since, callback_disabled_at = u.callback_disabled_at,
              description = u.description, ticket_image_url = u.ticket_image_url, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::float8[], $8::float8[],
                     $9::numeric[], $10::numeric[], $11::text[], $12::bigint[], $13::bigint[], $14::timestamptz[], $15::timestamptz[], $16::timestamptz[],
                     $17::text[], $18::text[])
           AS u(id, name, ticketeer_name, currency, shop_url, image_url, latitude, longitude, start_time, end_time, callback_url, tickets_sold, last_serial,
                cancelled_at, callback_failing_since, callback_disabled_at, description, ticket_image_url)
        WHERE e.id = u.id`,
      [
        ids,
        name,
        ticketeerName,
        currency,
        shopUrl,
        imageUrl,
        latitude,
        longitude,
        startTime,
        endTime,
        callbackUrl,
        ticketsSold,
        lastSerial,
        cancelledAt,
        failingSince,
        disabledAt,
        description,
        ticketImageUrl,
      ],
    );
    // A changed callbackUrl takes the event's waiting callbacks with it (the claim walks them by receiver).
    await retargetCallbacks(
      this.manager,
      events.map((event) => event.id),
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
    events.map((e) => e.lastSerial.toString()),
    events.map((e) => e.cancelledAt?.toISOString() ?? null),
    events.map((e) => e.description),
    events.map((e) => e.ticketImageUrl),
  ];
}

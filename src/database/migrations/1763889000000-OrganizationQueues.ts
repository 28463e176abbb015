import type { MigrationInterface, QueryRunner } from "typeorm";

/** The statuses of an action accepted and not yet on chain (final): what ORG_MAX_QUEUED_ACTIONS counts. */
const QUEUED = `('waiting_broadcast', 'waiting_funds', 'pending')`;

/**
 * Each organization's count of actions accepted and not yet on chain, for ORG_MAX_QUEUED_ACTIONS,
 * kept without a row that acceptances and the writer would both wait for:
 * - organization_queue_changes: +n / -n rows, inserts only, no locks: +n by each acceptance with
 *   its rows (ActionRecorder: its COPY is left without a trigger, which would cost it its batched
 *   inserts), -n (or +n) by a statement trigger on chain_actions for every UPDATE or DELETE that
 *   takes actions out of those statuses or puts them back (a batch's finalization, an action
 *   failed unsent), whatever writes the ledger, now or later;
 * - organization_queues: the count the changes were last folded into;
 * - organization_queue_reservations: room taken by acceptances still running, each deleted in its
 *   acceptance's transaction, or ignored once expired; reserve_organization_queue_room takes it
 *   (see OrganizationQueueStore).
 */
export class OrganizationQueues1763889000000 implements MigrationInterface {
  name = "OrganizationQueues1763889000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE organization_queues (organization_id uuid PRIMARY KEY, queued bigint NOT NULL DEFAULT 0)`);
    await queryRunner.query(`CREATE TABLE organization_queue_changes (id bigserial PRIMARY KEY, organization_id uuid NOT NULL, delta bigint NOT NULL)`);
    await queryRunner.query(`CREATE INDEX organization_queue_changes_organization_idx ON organization_queue_changes (organization_id)`);
    await queryRunner.query(`
      CREATE TABLE organization_queue_reservations (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL,
        count integer NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX organization_queue_reservations_organization_idx ON organization_queue_reservations (organization_id)`);
    await queryRunner.query(`
      CREATE FUNCTION organization_queue_changes_of_actions() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' THEN
          INSERT INTO organization_queue_changes (organization_id, delta)
          SELECT n.organization_id, sum(CASE WHEN n.status IN ${QUEUED} THEN 1 ELSE -1 END)
            FROM old_actions o JOIN new_actions n ON n.id = o.id
           WHERE (o.status IN ${QUEUED}) <> (n.status IN ${QUEUED})
           GROUP BY n.organization_id
          HAVING sum(CASE WHEN n.status IN ${QUEUED} THEN 1 ELSE -1 END) <> 0;
        ELSE
          INSERT INTO organization_queue_changes (organization_id, delta)
          SELECT organization_id, -count(*) FROM old_actions WHERE status IN ${QUEUED} GROUP BY organization_id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER chain_actions_queue_updated AFTER UPDATE ON chain_actions
        REFERENCING OLD TABLE AS old_actions NEW TABLE AS new_actions FOR EACH STATEMENT EXECUTE FUNCTION organization_queue_changes_of_actions()`);
    await queryRunner.query(`
      CREATE TRIGGER chain_actions_queue_deleted AFTER DELETE ON chain_actions
        REFERENCING OLD TABLE AS old_actions FOR EACH STATEMENT EXECUTE FUNCTION organization_queue_changes_of_actions()`);
    // One call, one round trip (it runs in the caller's statement, committed as it ends): the lock
    // first, then the count in a statement of its own, whose snapshot sees every reservation and fold
    // that held the lock before. A reservation lost with an unflushed commit was going to expire anyway.
    await queryRunner.query(`
      CREATE FUNCTION reserve_organization_queue_room(for_organization uuid, wanted integer, queue_limit bigint, reservation uuid, ttl_seconds integer)
        RETURNS TABLE (granted integer, queued bigint) LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM set_config('synchronous_commit', 'off', true);
        INSERT INTO organization_queues AS q (organization_id) VALUES (for_organization)
          ON CONFLICT (organization_id) DO UPDATE SET queued = q.queued;
        RETURN QUERY
          WITH folded AS (DELETE FROM organization_queue_changes c WHERE c.organization_id = for_organization RETURNING c.delta),
               expired AS (DELETE FROM organization_queue_reservations r WHERE r.organization_id = for_organization AND r.expires_at <= now() RETURNING r.id),
               held AS (
                 SELECT COALESCE(sum(r.count), 0)::bigint AS count FROM organization_queue_reservations r
                  WHERE r.organization_id = for_organization AND r.expires_at > now()),
               queue AS (
                 UPDATE organization_queues q SET queued = q.queued + COALESCE((SELECT sum(f.delta) FROM folded f), 0)
                  WHERE q.organization_id = for_organization RETURNING q.queued),
               room AS (
                 SELECT LEAST(wanted::bigint, GREATEST(0, queue_limit - queue.queued - held.count))::integer AS granted, queue.queued + held.count AS queued
                   FROM queue, held),
               reserved AS (
                 INSERT INTO organization_queue_reservations (id, organization_id, count, expires_at)
                 SELECT reservation, for_organization, room.granted, now() + make_interval(secs => ttl_seconds) FROM room WHERE room.granted > 0
                 RETURNING id)
          SELECT room.granted, room.queued FROM room;
      END $$`);
    await queryRunner.query(
      `INSERT INTO organization_queues (organization_id, queued) SELECT organization_id, count(*) FROM chain_actions WHERE status IN ${QUEUED} GROUP BY organization_id`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER chain_actions_queue_deleted ON chain_actions`);
    await queryRunner.query(`DROP TRIGGER chain_actions_queue_updated ON chain_actions`);
    await queryRunner.query(`DROP FUNCTION reserve_organization_queue_room(uuid, integer, bigint, uuid, integer)`);
    await queryRunner.query(`DROP FUNCTION organization_queue_changes_of_actions()`);
    await queryRunner.query(`DROP TABLE organization_queue_reservations`);
    await queryRunner.query(`DROP TABLE organization_queue_changes`);
    await queryRunner.query(`DROP TABLE organization_queues`);
  }
}

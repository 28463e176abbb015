import type { MigrationInterface, QueryRunner } from "typeorm";

export class SerialReservations1763810000000 implements MigrationInterface {
  name = "SerialReservations1763810000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // The last serial handed out to the event's tickets. Sales reserve ranges of serials in a short
    // transaction of their own, ahead of the acceptance, so that concurrent sales of one event do
    // not queue on its row; a range a failed acceptance did not use leaves a gap. tickets_sold stays
    // the count of tickets sold. Until now serials were dense: the last one is tickets_sold (the
    // highest serial stored, should a row say otherwise).
    await queryRunner.query(`ALTER TABLE events ADD COLUMN last_serial bigint NOT NULL DEFAULT 0`);
    await queryRunner.query(`
      UPDATE events AS e SET last_serial = GREATEST(e.tickets_sold, COALESCE(t.max_serial, 0))
        FROM events AS x
        LEFT JOIN (SELECT event_ref, max(serial) AS max_serial FROM tickets GROUP BY event_ref) AS t ON t.event_ref = x.id
       WHERE e.id = x.id`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The earlier code hands out tickets_sold + 1 as the next serial: past every serial taken, gaps
    // included (tickets_sold then counts them as sold).
    await queryRunner.query(`UPDATE events SET tickets_sold = last_serial WHERE last_serial > tickets_sold`);
    await queryRunner.query(`ALTER TABLE events DROP COLUMN last_serial`);
  }
}

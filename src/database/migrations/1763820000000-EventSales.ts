import type { MigrationInterface, QueryRunner } from "typeorm";

export class EventSales1763820000000 implements MigrationInterface {
  name = "EventSales1763820000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    // The sales of an acceptance that did not lock its event, one row per acceptance and event,
    // inserted with the tickets: an on-sale's acceptances never write the event's row. An event's
    // tickets sold are its tickets_sold (sales of acceptances that held it locked) plus these.
    await queryRunner.query(`
      CREATE TABLE event_sales (
        event_ref uuid NOT NULL,
        count bigint NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX event_sales_event_idx ON event_sales (event_ref)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE events AS e SET tickets_sold = e.tickets_sold + s.count
        FROM (SELECT event_ref, sum(count) AS count FROM event_sales GROUP BY event_ref) AS s
       WHERE e.id = s.event_ref`);
    await queryRunner.query(`DROP TABLE event_sales`);
  }
}

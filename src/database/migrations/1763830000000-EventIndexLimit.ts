import type { MigrationInterface, QueryRunner } from "typeorm";

/** The registry contract accepts event indexes up to 2^40 - 1 (see TicketIds.MAX_EVENT_INDEX): the sequence stops there. */
export class EventIndexLimit1763830000000 implements MigrationInterface {
  name = "EventIndexLimit1763830000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER SEQUENCE registry_event_index_seq MAXVALUE 1099511627775`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER SEQUENCE registry_event_index_seq NO MAXVALUE`);
  }
}

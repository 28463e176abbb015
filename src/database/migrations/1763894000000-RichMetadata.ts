import type { MigrationInterface, QueryRunner } from "typeorm";

/**
 * What a ticket's token shows beyond the chain's facts: its own name, description, animation and
 * attributes, and per event a description and the image of its tickets that have no uri. Blank (and
 * no attributes) means unset, as for uri: existing rows need no rewrite.
 */
export class RichMetadata1763894000000 implements MigrationInterface {
  name = "RichMetadata1763894000000";

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE tickets
        ADD COLUMN name text NOT NULL DEFAULT '',
        ADD COLUMN description text NOT NULL DEFAULT '',
        ADD COLUMN animation_url text NOT NULL DEFAULT '',
        ADD COLUMN attributes jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attributes) = 'array')`);
    await queryRunner.query(`
      ALTER TABLE events
        ADD COLUMN description text NOT NULL DEFAULT '',
        ADD COLUMN ticket_image_url text NOT NULL DEFAULT ''`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE events DROP COLUMN ticket_image_url, DROP COLUMN description`);
    await queryRunner.query(`ALTER TABLE tickets DROP COLUMN attributes, DROP COLUMN animation_url, DROP COLUMN description, DROP COLUMN name`);
  }
}

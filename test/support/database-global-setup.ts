import { createTemplateDatabase, TEMPLATE_DATABASE_ENV } from "./test-database";

/**
 * Vitest global setup of the projects that use PostgreSQL: the migrations run once, into a template
 * database, and each test file's database is a copy of it (see createTestDatabase). Set in the main
 * process before the workers start, so they inherit it; the projects share the first one's template.
 */
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env[TEMPLATE_DATABASE_ENV] !== undefined) return async () => undefined;
  const template = await createTemplateDatabase();
  process.env[TEMPLATE_DATABASE_ENV] = template.name;
  return async () => {
    delete process.env[TEMPLATE_DATABASE_ENV];
    await template.drop();
  };
}

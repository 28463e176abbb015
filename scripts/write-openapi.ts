import "reflect-metadata";

import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { NestFactory } from "@nestjs/core";

import { AppModule } from "../src/app.module";
import { buildOpenApiDocument } from "../src/app.setup";
import { loadConfig } from "../src/config/app-config";

export const OPENAPI_PATH = join(__dirname, "..", "openapi.json");

/**
 * Writes the OpenAPI document the app serves at /docs-json, so API changes show in review.
 * Preview mode builds the module graph without connecting to PostgreSQL or Redis.
 */
async function main(): Promise<void> {
  const app = await NestFactory.create(AppModule.forConfig(loadConfig({ APP_MODE: "test" })), { preview: true, logger: false });
  const document = buildOpenApiDocument(app);
  writeFileSync(OPENAPI_PATH, JSON.stringify(document, null, 2) + "\n");
  await app.close();
  console.log(`Wrote ${OPENAPI_PATH}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

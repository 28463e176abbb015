import type { INestApplicationContext } from "@nestjs/common";
import type Redis from "ioredis";
import { DataSource } from "typeorm";

import { REDIS_CLIENT } from "../redis/redis.module";

const PROBE_TIMEOUT_MS = 1_000;

/**
 * The dependencies that do not answer just now, by name ("PostgreSQL", "Redis"): asked once as the
 * process stops, so that its last line and exit code can say that it stopped without them.
 */
export async function unreachableDependencies(app: INestApplicationContext): Promise<string[]> {
  const redis = app.get<Redis>(REDIS_CLIENT);
  const dataSource = app.get(DataSource);
  const probes: [string, () => Promise<unknown>][] = [
    ["PostgreSQL", () => dataSource.query("SELECT 1")],
    ["Redis", () => redis.ping()],
  ];
  const answers = await Promise.all(probes.map(async ([name, probe]) => ((await answersInTime(probe)) ? null : name)));
  return answers.filter((name): name is string => name !== null);
}

async function answersInTime(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS)));
  try {
    return await Promise.race([probe().then(() => true as const), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

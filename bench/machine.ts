import { cpus, platform, release, totalmem } from "node:os";

import Redis from "ioredis";
import { Client } from "pg";

/** What a run was measured on, recorded beside its figures. */
export interface MachineInfo {
  date: string;
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  postgres: string;
  redis: string;
}

export async function machineInfo(): Promise<MachineInfo> {
  return {
    date: new Date().toISOString(),
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${platform()} ${release()}`,
    node: process.version,
    postgres: await postgresVersion(),
    redis: await redisVersion(),
  };
}

async function postgresVersion(): Promise<string> {
  const client = new Client({ connectionString: `${process.env.BENCH_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432"}/postgres` });
  try {
    await client.connect();
    return (await client.query<{ server_version: string }>("SHOW server_version")).rows[0].server_version;
  } catch {
    return "unknown";
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The version of the Redis the service uses by default (the benchmarks' services share it under their own key prefixes). */
async function redisVersion(): Promise<string> {
  const redis = new Redis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", { lazyConnect: true, maxRetriesPerRequest: 0 });
  try {
    await redis.connect();
    return /redis_version:(\S+)/.exec(await redis.info("server"))?.[1] ?? "unknown";
  } catch {
    return "unknown";
  } finally {
    redis.disconnect();
  }
}

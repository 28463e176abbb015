import Redis from "ioredis";

/** Redis's memory as INFO memory reports it, in bytes, and its number of keys. */
export interface RedisMemoryReading {
  /** used_memory: everything Redis allocated (data, clients, scripts), allocator overhead aside. */
  usedMemory: number;
  /** used_memory_dataset: the keys and values alone. */
  dataset: number;
  /** mem_clients_normal: the connected clients' buffers. */
  clients: number;
  keys: number;
  /** The keys by pattern (numbers as #, long hex or ids as *), the most numerous first. */
  keyPatterns: { pattern: string; keys: number }[];
}

const MAX_PATTERNS = 6;

export async function readRedisMemory(url: string): Promise<RedisMemoryReading> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const info = await client.info("memory");
    const field = (name: string) => {
      const match = new RegExp(`^${name}:(\\d+)\\r?$`, "m").exec(info);
      if (!match) throw new Error(`INFO memory has no ${name} line`);
      return Number(match[1]);
    };
    return {
      usedMemory: field("used_memory"),
      dataset: field("used_memory_dataset"),
      clients: field("mem_clients_normal"),
      keys: await client.dbsize(),
      keyPatterns: await keyPatterns(client),
    };
  } finally {
    client.disconnect();
  }
}

async function keyPatterns(client: Redis): Promise<{ pattern: string; keys: number }[]> {
  const counts = new Map<string, number>();
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "COUNT", 1_000);
    cursor = next;
    for (const key of keys) {
      const pattern = key.replace(/[0-9a-f-]{16,}/gi, "*").replace(/\d+/g, "#");
      counts.set(pattern, (counts.get(pattern) ?? 0) + 1);
    }
  } while (cursor !== "0");
  return [...counts]
    .map(([pattern, keys]) => ({ pattern, keys }))
    .sort((a, b) => b.keys - a.keys)
    .slice(0, MAX_PATTERNS);
}

import Redis from "ioredis";

/** Redis's `used_memory` (INFO memory), in bytes: what its data and clients take, allocator overhead aside. */
export async function redisUsedMemory(url: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const match = /^used_memory:(\d+)\r?$/m.exec(await client.info("memory"));
    if (!match) throw new Error("INFO memory has no used_memory line");
    return Number(match[1]);
  } finally {
    client.disconnect();
  }
}

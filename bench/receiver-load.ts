import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TYPESCRIPT_RUNNER_ARGS } from "../scripts/stack/typescript-runner";

/**
 * The callback receiver's own capacity: a load generator in a process of its own (as the worker
 * is) POSTs the given bodies straight to the receiver over HTTPS with the worker's headers
 * (content-type, user-agent, the three Standard Webhooks headers, signed as the worker signs) from
 * 64 keep-alive loops of Node's `fetch` (64 connections: the worker's agent holds at most 64
 * sockets), the test CA trusted through NODE_EXTRA_CA_CERTS as in the worker, and checks every
 * answer is 2xx. No autocannon in package.json: this keep-alive fetch loop stands in for it.
 */
export interface ReceiverLoad {
  url: string;
  caFile: string;
  requests: { body: string; headers: Record<string, string> }[];
  concurrency?: number;
}

export interface ReceiverCapacity {
  requests: number;
  seconds: number;
  perSecond: number;
}

/** Runs the load generator as a child process on `load` (written to `workFile`); its figures. */
export async function measureReceiverCapacity(load: ReceiverLoad, workFile: string): Promise<ReceiverCapacity> {
  writeFileSync(workFile, JSON.stringify(load));
  const output = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [...TYPESCRIPT_RUNNER_ARGS, join(__dirname, "receiver-load.ts"), workFile],
      { maxBuffer: 1 << 20, env: { ...process.env, NODE_EXTRA_CA_CERTS: load.caFile } },
      (error, stdout, stderr) => (error ? reject(new Error(`receiver load failed: ${stderr || error.message}`)) : resolve(stdout)),
    ),
  );
  return JSON.parse(output.trim().split("\n").pop() as string) as ReceiverCapacity;
}

async function generate(load: ReceiverLoad): Promise<ReceiverCapacity> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: load.concurrency ?? 64 }, async () => {
      while (next < load.requests.length) {
        const request = load.requests[next++];
        const response = await fetch(load.url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "ticket-registry-callbacks/1", ...request.headers },
          body: request.body,
        });
        await response.arrayBuffer();
        if (response.status >= 300) throw new Error(`HTTP ${response.status}`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { requests: load.requests.length, seconds, perSecond: load.requests.length / seconds };
}

if (require.main === module) {
  generate(JSON.parse(readFileSync(process.argv[2], "utf8")) as ReceiverLoad)
    .then((capacity) => console.log(JSON.stringify(capacity)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}

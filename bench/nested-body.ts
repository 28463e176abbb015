import { availableParallelism, loadavg } from "node:os";

import { startBenchServer } from "./bench-server";
import { ratioOf } from "./figures";
import { MemorySampler, residentBytes } from "./stack/rss";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";
import { median, quantile } from "./stats";

/**
 * What a deeply nested body costs the api, beside a flat body of the same size (the limit: the
 * same bytes without the nesting). Each body is as large as /stream takes (STREAM_BODY_LIMIT_BYTES,
 * 16 MiB): one scannedTicket action whose ignored field `pad` holds either about 8.4 million nested
 * arrays (`[[[…]]]`) or one long string. Three clients post it at once, `ROUNDS` times, to an api
 * process of its own (a fresh one per body); meanwhile a prober asks `GET /health/live` every
 * `PROBE_EVERY_MS` and the api's resident memory is sampled. Prints time per request, the answers,
 * /health/live latency while the bodies were posted, and the api's memory before, at its peak and
 * `SETTLE_MS` after the last answer.
 */
const CLIENTS = 3;
const ROUNDS = 3;
const PROBE_EVERY_MS = 50;
const SAMPLE_EVERY_MS = 100;
const SETTLE_MS = 5_000;
const STREAM_BODY_BYTES = 16 * 1024 * 1024;
/** The goal: a nested body costs no more than a flat one of the same size (ratio of the medians, with room for noise). */
const RATIO_GOAL = 1.2;

interface Body {
  name: string;
  text: string;
}

interface Run {
  body: string;
  bytes: number;
  requestMs: number[];
  statuses: string;
  probes: Probes;
  rssStartMb: number;
  rssPeakMb: number;
  rssAfterMb: number;
}

export async function runNestedBodyBench(): Promise<Run[]> {
  const bodies = [flatBody(STREAM_BODY_BYTES), nestedBody(STREAM_BODY_BYTES)];
  const runs: Run[] = [];
  for (const body of bodies) runs.push(await measureBody(body));
  report(runs);
  return runs;
}

const HEAD = `[{"action":"scannedTicket","data":{"ticketId":"bench-nested"},"pad":`;
const TAIL = `}]`;

/** `bytes` bytes whose `pad` is one string. */
function flatBody(bytes: number): Body {
  const length = bytes - HEAD.length - TAIL.length - 2;
  return { name: "flat (one string)", text: `${HEAD}"${"p".repeat(length)}"${TAIL}` };
}

/** About `bytes` bytes whose `pad` is arrays nested as deep as the size allows. */
function nestedBody(bytes: number): Body {
  const depth = Math.floor((bytes - HEAD.length - TAIL.length) / 2);
  return { name: `nested (${depth.toLocaleString("en-US")} arrays)`, text: HEAD + "[".repeat(depth) + "]".repeat(depth) + TAIL };
}

async function measureBody(body: Body): Promise<Run> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-nested-body");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  try {
    const server = await startBenchServer({}, logs.path);
    teardown.add("service", server.stop);
    const post = () => timedPost(server.baseUrl, server.apiKey, body.text);
    // Warm-up: a small body, so that the first large one does not pay for compiling the route.
    await timedPost(server.baseUrl, server.apiKey, `${HEAD}"warm"${TAIL}`);
    const rssStart = residentBytes(server.pid) ?? 0;
    const memory = new MemorySampler(() => [{ name: "api", pid: server.pid }]);
    memory.startEvery(SAMPLE_EVERY_MS);
    const prober = probeLiveness(server.baseUrl);
    const answers: { ms: number; status: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      answers.push(...(await Promise.all(Array.from({ length: CLIENTS }, post))));
    }
    const probes = await prober.stop();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const [track] = memory.stop();
    passed = true;
    return {
      body: body.name,
      bytes: Buffer.byteLength(body.text),
      requestMs: answers.map((answer) => answer.ms),
      statuses: countStatuses(answers.map((answer) => answer.status)),
      probes,
      rssStartMb: megabytes(rssStart),
      rssPeakMb: megabytes(track.peakBytes),
      rssAfterMb: megabytes(track.endBytes),
    };
  } finally {
    await teardown.run();
  }
}

/** One POST /stream; `status` 0 when no answer came (the connection was closed). */
async function timedPost(baseUrl: string, apiKey: string, text: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const headers = { "content-type": "application/json", "x-api-key": apiKey };
  const status = await fetch(`${baseUrl}/stream`, { method: "POST", headers, body: text }).then(
    async (response) => (await response.arrayBuffer(), response.status),
    () => 0,
  );
  return { ms: performance.now() - started, status };
}

interface Probes {
  latencies: number[];
  /** Probes that got no answer: a stalled api closes a kept-alive connection while a probe is on it. */
  failed: number;
}

/** Asks /health/live every PROBE_EVERY_MS until stopped; each latency is recorded, until the failure too. */
function probeLiveness(baseUrl: string): { stop: () => Promise<Probes> } {
  const probes: Probes = { latencies: [], failed: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const answered = await fetch(`${baseUrl}/health/live`).then(
        async (response) => (await response.arrayBuffer(), response.ok),
        () => false,
      );
      probes.latencies.push(performance.now() - started);
      if (!answered) probes.failed++;
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return probes;
    },
  };
}

function countStatuses(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, count]) => `${count}× ${status === 0 ? "no answer" : status}`).join(", ");
}

const megabytes = (bytes: number) => Math.round(bytes / 1e6);

function report(runs: Run[]): void {
  console.log(
    `POST /stream, ${CLIENTS} clients at once, ${ROUNDS} rounds, a fresh api process per body; GET /health/live every ${PROBE_EVERY_MS} ms meanwhile:`,
  );
  console.table(
    runs.map((run) => ({
      body: run.body,
      MB: (run.bytes / 1e6).toFixed(1),
      answers: run.statuses,
      "request median ms": median(run.requestMs).toFixed(0),
      "request max ms": Math.max(...run.requestMs).toFixed(0),
      "/health/live p99 ms": quantile(run.probes.latencies, 0.99).toFixed(0),
      "/health/live max ms": Math.max(...run.probes.latencies).toFixed(0),
      "/health/live failed": `${run.probes.failed} of ${run.probes.latencies.length}`,
      "api RSS before MB": run.rssStartMb,
      "peak MB": run.rssPeakMb,
      [`${SETTLE_MS / 1000} s after MB`]: run.rssAfterMb,
    })),
  );
  console.log(`Load average (1 min) at the end: ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cores`);
  const [flat, nested] = runs;
  const ratio = ratioOf(median(nested.requestMs), median(flat.requestMs));
  console.log(
    `Nested beside its limit, the flat body of the same size: request median ${median(nested.requestMs).toFixed(0)} ms / ${median(flat.requestMs).toFixed(0)} ms, ` +
      `ratio ${ratio} (goal ≤ ${RATIO_GOAL}: ${ratio <= RATIO_GOAL ? "yes" : "NO"}); api peak RSS ${nested.rssPeakMb} MB / ${flat.rssPeakMb} MB`,
  );
}

if (require.main === module) {
  runNestedBodyBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}

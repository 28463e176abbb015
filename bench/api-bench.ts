import { randomBytes } from "node:crypto";

import { startBenchServer } from "./bench-server";
import { measureCopyLimit } from "./copy-limit";
import { describeLimit, type Figure, ratioOf } from "./figures";
import { cpuProfileDir, cpuProfilesIn, formatCpuSummary, summarizeCpuProfile } from "./stack/cpu-profile";
import { runDirectory } from "./stack/run-directory";
import { Teardown } from "./stack/teardown";
import { median, quantile } from "./stats";

/**
 * Acceptance speed of the API, one request at a time against a service in its own process:
 * /stream with 5000 soldTicket actions and /api/v1/sold with 100 tickets. Prints median and p99
 * latency and actions per second beside the targets, and /stream beside its limit: PostgreSQL's COPY
 * of the rows the same requests wrote, into the same tables of the same database (bench/copy-limit.ts).
 */
const STREAM_RUNS = 20;
const SOLD_RUNS = 200;
const WARMUP_RUNS = 5;

const STREAM_TARGET_MS = 300;
const SOLD_TARGET_MS = 30;
/** The goal: /stream at most 1.3 times PostgreSQL's COPY of the same rows. */
const COPY_RATIO_GOAL = 1.3;

/** Runs the benchmark, prints its table and returns its figures. */
export async function runApiBench(): Promise<Figure[]> {
  const teardown = new Teardown();
  const logs = runDirectory("bench-api");
  let passed = false;
  teardown.add("process logs", async () => logs.finish(passed));
  let servicePid: number | undefined;
  try {
    const server = await startBenchServer({}, logs.path);
    teardown.add("service", server.stop);
    servicePid = server.pid;
    const post = poster(server.baseUrl, server.apiKey);
    const eventId = `bench-${randomBytes(4).toString("hex")}`;
    await post("/api/v1/events", { eventId, ticketeerId: server.ticketeerId, currency: "EUR", callbackUrl: "https://bench.example.com/cb" });
    const stream = await measure(STREAM_RUNS, () => post("/stream", soldActions(eventId, 5000)), 5000);
    const copy = await measureCopyLimit(server.databaseUrl, 5000, STREAM_RUNS);
    const sold = await measure(SOLD_RUNS, () => post("/api/v1/sold", soldItems(eventId, 100)), 100);
    report([
      { name: "POST /stream, 5000 soldTicket", ...stream, targetMs: STREAM_TARGET_MS, targetRate: 16_000 },
      { name: "POST /api/v1/sold, 100 tickets", ...sold, targetMs: SOLD_TARGET_MS },
    ]);
    const streamFigure: Figure = {
      name: "POST /stream 5000 soldTicket, median",
      value: round(stream.medianMs),
      unit: "ms",
      target: STREAM_TARGET_MS,
      better: "lower",
      limit: round(copy.medianMs),
      limitName: `PostgreSQL COPY of the same rows (${copy.tables.map(({ table, rows }) => `${table} ${rows}`).join(", ")}), median`,
      ratio: ratioOf(stream.medianMs, copy.medianMs),
      ratioGoal: COPY_RATIO_GOAL,
    };
    console.log("/stream beside PostgreSQL's COPY of the rows the same requests wrote (same tables, same database), one transaction per request:");
    console.table([
      {
        runs: copy.runs,
        tables: copy.tables.map(({ table, rows }) => `${table} (${rows} rows)`).join(", "),
        "COPY median ms": copy.medianMs.toFixed(1),
        "/stream median ms": stream.medianMs.toFixed(1),
        limit: describeLimit(streamFigure),
      },
    ]);
    passed = true;
    return [streamFigure, { name: "POST /api/v1/sold 100 tickets, median", value: round(sold.medianMs), unit: "ms", target: SOLD_TARGET_MS, better: "lower" }];
  } finally {
    await teardown.run();
    // The service's profile (BENCH_CPU_PROFILE_DIR) covers its start, /stream and then /sold.
    const profiles = cpuProfileDir("service");
    if (profiles && servicePid !== undefined) {
      for (const file of cpuProfilesIn(profiles, servicePid)) console.log(formatCpuSummary(`service process, ${file}`, summarizeCpuProfile(file)));
    }
  }
}

const round = (value: number) => Math.round(value * 10) / 10;

function poster(baseUrl: string, apiKey: string) {
  return async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { status?: string; data?: { status: string }[] } | { status: string }[];
    const entries = Array.isArray(answer) ? answer : (answer.data ?? [answer]);
    if (!response.ok || entries.some((entry) => entry.status !== "success")) throw new Error(`${path} refused items: ${JSON.stringify(answer).slice(0, 300)}`);
  };
}

let ticketCounter = 0;
const nextTicketId = () => `ticket-${process.pid}-${++ticketCounter}`;

function soldItems(eventId: string, count: number) {
  return Array.from({ length: count }, () => ({ eventId, ticketId: nextTicketId(), price: "49.95", orderTime: 1_750_000_000 }));
}

function soldActions(eventId: string, count: number) {
  return soldItems(eventId, count).map((data) => ({ action: "soldTicket", data }));
}

async function measure(runs: number, send: () => Promise<void>, actionsPerRequest: number) {
  for (let i = 0; i < WARMUP_RUNS; i++) await send();
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await send();
    latencies.push(performance.now() - started);
  }
  const medianMs = median(latencies);
  return { runs, medianMs, p99Ms: quantile(latencies, 0.99), actionsPerSecond: (actionsPerRequest * 1000) / medianMs };
}

interface Row {
  name: string;
  runs: number;
  medianMs: number;
  p99Ms: number;
  actionsPerSecond: number;
  targetMs: number;
  targetRate?: number;
}

function report(rows: Row[]): void {
  console.table(
    rows.map((row) => ({
      benchmark: row.name,
      runs: row.runs,
      "median ms": row.medianMs.toFixed(1),
      "p99 ms": row.p99Ms.toFixed(1),
      "actions/s": Math.round(row.actionsPerSecond),
      target: `≤ ${row.targetMs} ms median` + (row.targetRate ? `, ≥ ${row.targetRate} actions/s` : ""),
      met: row.medianMs <= row.targetMs && (!row.targetRate || row.actionsPerSecond >= row.targetRate) ? "yes" : "NO",
    })),
  );
}

if (require.main === module) {
  runApiBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}

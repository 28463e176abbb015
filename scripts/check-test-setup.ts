import { execFile } from "node:child_process";
import { existsSync } from "node:fs";

import Redis from "ioredis";
import { Client } from "pg";

import { DEFAULT_REDIS_URL } from "../src/config/app-config";

/**
 * What `npm test` needs of the machine, checked before anything runs: one message that names every
 * missing piece and how to get it, instead of a failure deep in the suite.
 */

const NODE_MAJOR = 24;
const DATABASE_SERVER_URL = process.env.TEST_DATABASE_SERVER_URL ?? "postgres://postgres@127.0.0.1:5432";
const REDIS_URL = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
/** The ticket page's test drives this browser (test/verify/ticket-page.e2e-spec.ts). */
const CHROMIUM = "/usr/bin/chromium";
/** The alert rules' tests run Prometheus's rule checker (test/ops/prometheus-rules.spec.ts). */
const PROMTOOL = "promtool";

async function main(): Promise<void> {
  const problems = (await Promise.all([node(), postgres(), redis(), chromium(), promtool()])).filter((problem) => problem !== undefined);
  if (problems.length === 0) return;
  console.error(`npm test cannot run on this machine yet:\n${problems.map((problem) => `- ${problem}`).join("\n")}\n(bash .ci/run sets all of this up.)`);
  process.exit(1);
}

async function node(): Promise<string | undefined> {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= NODE_MAJOR) return undefined;
  return `Node ${NODE_MAJOR} or later is needed, this is ${process.version}: install Node ${NODE_MAJOR} LTS (\`nvm use\` reads .nvmrc).`;
}

async function postgres(): Promise<string | undefined> {
  const client = new Client({ connectionString: `${DATABASE_SERVER_URL}/postgres`, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return undefined;
  } catch (error) {
    return `PostgreSQL does not answer at ${DATABASE_SERVER_URL} as a user that may create databases (${(error as Error).message}): start it (\`apt-get install postgresql\`, user postgres without a password), or set TEST_DATABASE_SERVER_URL.`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redis(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 3_000 });
  let cause: Error | undefined;
  client.on("error", (error: Error) => (cause = error));
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis does not answer at ${REDIS_URL} (${(cause ?? (error as Error)).message}): start it (\`apt-get install redis-server\`), or set REDIS_URL.`;
  } finally {
    client.disconnect();
  }
}

async function chromium(): Promise<string | undefined> {
  if (existsSync(CHROMIUM)) return undefined;
  return `Chromium is not at ${CHROMIUM}; the public ticket page's test drives it: \`apt-get install chromium\` (Debian's package; playwright-core downloads no browser).`;
}

function promtool(): Promise<string | undefined> {
  return new Promise((resolve) =>
    execFile(PROMTOOL, ["--version"], (error) =>
      resolve(
        error ? `${PROMTOOL} is not on PATH; the alert rules' tests run it: \`apt-get install prometheus\` (Debian's package brings promtool).` : undefined,
      ),
    ),
  );
}

void main();

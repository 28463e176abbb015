/** Reading GET /metrics in the end-to-end tests, with the admin credential startTestApp configures. */

/** ADMIN_PASSWORD of every startTestApp that does not set its own (16 characters at least). */
export const TEST_ADMIN_PASSWORD = "test-admin-password-0123";

/** The Authorization header of the test admin credential: /metrics and the full readiness need it. */
export function adminHeaders(password = TEST_ADMIN_PASSWORD, username = "admin"): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}` };
}

/** GET path with the admin credential: the full readiness (signers by address), or /metrics. */
export function adminFetch(url: string): Promise<Response> {
  return fetch(url, { headers: adminHeaders() });
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  status: number;
  contentType: string | null;
  text: string;
  samples: Sample[];
}

export async function scrapeMetrics(baseUrl: string): Promise<Scrape> {
  const response = await adminFetch(`${baseUrl}/metrics`);
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get("content-type"), text, samples: parseSamples(text) };
}

/** The samples of the Prometheus text format: `name{label="value",...} number`, comments skipped. */
export function parseSamples(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, name, value]) => [name, value]));
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}

/** Whether any sample is named `name` with these labels. */
export function has(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): boolean {
  return samples.some((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

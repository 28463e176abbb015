import { generateTestTls, TEST_TLS_DIR_ENV, writeTestTls } from "./test-ca";

/**
 * Vitest global setup: a test CA for the local HTTPS callback receivers. Node reads
 * NODE_EXTRA_CA_CERTS only when a process starts, so it is set here, in the main process, before the
 * test workers (and the service processes they start) are created: they inherit it and trust the CA
 * the standard way, like a deployment that trusts a private CA.
 */
export default async function setup(): Promise<() => void> {
  // Each Vitest project runs the global setup in the same main process: the first one's CA serves all.
  if (process.env[TEST_TLS_DIR_ENV] !== undefined) return () => undefined;
  const previous = { extraCa: process.env.NODE_EXTRA_CA_CERTS, dir: process.env[TEST_TLS_DIR_ENV] };
  const files = writeTestTls(await generateTestTls());
  process.env.NODE_EXTRA_CA_CERTS = files.caFile;
  process.env[TEST_TLS_DIR_ENV] = files.dir;
  return () => {
    files.remove();
    restore("NODE_EXTRA_CA_CERTS", previous.extraCa);
    restore(TEST_TLS_DIR_ENV, previous.dir);
  };
}

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

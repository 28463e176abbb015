import { readFileSync } from "node:fs";
import { join } from "node:path";

export { generateTestTls, type TestTls, type TestTlsFiles, writeTestTls } from "../../scripts/stack/local-tls";

/** The environment variable naming the folder the test TLS files are in (set by the Vitest global setup). */
export const TEST_TLS_DIR_ENV = "TEST_TLS_DIR";

/** The server certificate and key the global setup wrote, for a test HTTPS server. */
export function readTestServerTls(dir = process.env[TEST_TLS_DIR_ENV]): { cert: string; key: string; caCert: string } {
  if (!dir) throw new Error(`${TEST_TLS_DIR_ENV} is not set: run the tests through Vitest (vitest.config.mts registers the TLS global setup)`);
  return {
    cert: readFileSync(join(dir, "server.pem"), "utf8"),
    key: readFileSync(join(dir, "server-key.pem"), "utf8"),
    caCert: readFileSync(join(dir, "ca.pem"), "utf8"),
  };
}

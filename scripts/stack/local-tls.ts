import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { generate } from "selfsigned";

/**
 * A throwaway certificate authority and a server certificate it signed for localhost, 127.0.0.1 and
 * ::1, and for the names under receivers.test, which tests of name resolution serve from a DNS server
 * of their own (dns-server.ts): the local HTTPS callback receivers of the tests and the benchmarks,
 * trusted by the service through NODE_EXTRA_CA_CERTS.
 */
export interface TestTls {
  caCert: string;
  cert: string;
  key: string;
}

/** Where the files of a written TestTls are: NODE_EXTRA_CA_CERTS points at `caFile`. */
export interface TestTlsFiles {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  remove: () => void;
}

export async function generateTestTls(): Promise<TestTls> {
  const notBeforeDate = new Date(Date.now() - 60_000);
  const notAfterDate = new Date(Date.now() + 7 * 24 * 3600_000);
  const ca = await generate([{ name: "commonName", value: "ticket-registry test CA" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const server = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 2, value: "localhost" },
          { type: 2, value: "*.receivers.test" },
          { type: 7, ip: "127.0.0.1" },
          { type: 7, ip: "::1" },
        ],
      },
    ],
  });
  return { caCert: ca.cert, cert: server.cert, key: server.private };
}

/**
 * Writes the certificates to a fresh temporary folder. The CA file also carries the certificates of
 * an NODE_EXTRA_CA_CERTS already set, so pointing the variable at it takes nothing away.
 */
export function writeTestTls(tls: TestTls, previousExtraCaFile = process.env.NODE_EXTRA_CA_CERTS): TestTlsFiles {
  const dir = mkdtempSync(join(tmpdir(), "trs-test-tls-"));
  const caFile = join(dir, "ca.pem");
  const certFile = join(dir, "server.pem");
  const keyFile = join(dir, "server-key.pem");
  const previous = previousExtraCaFile && existsSync(previousExtraCaFile) ? `${readFileSync(previousExtraCaFile, "utf8").trim()}\n` : "";
  writeFileSync(caFile, previous + tls.caCert);
  writeFileSync(certFile, tls.cert);
  writeFileSync(keyFile, tls.key, { mode: 0o600 });
  return { dir, caFile, certFile, keyFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

import { readFileSync, unwatchFile, watchFile } from "node:fs";
import type { Server } from "node:https";
import { createSecureContext } from "node:tls";

import { Logger } from "@nestjs/common";

import type { AppConfig } from "../config/app-config";

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** How often the certificate and key files are looked at for a change. */
const WATCH_INTERVAL_MS = 1_000;

/** The certificate and key of TLS_CERT_FILE / TLS_KEY_FILE, checked as a pair; null when TLS is not configured. */
export function readTlsFiles(http: AppConfig["http"]): TlsFiles | null {
  if (http.tlsCertFile === null || http.tlsKeyFile === null) return null;
  const files = { cert: readFileSync(http.tlsCertFile), key: readFileSync(http.tlsKeyFile) };
  // Throws on a certificate that is not PEM or a key that does not belong to it.
  createSecureContext(files);
  return files;
}

/**
 * Picks up a renewed certificate without a restart: when either file changes (written in place,
 * replaced by a rename or a symlink swap), both are read again and, if they make a valid pair, used
 * for the next TLS handshakes. A half-written pair (the certificate renewed, the key not yet) is
 * skipped with a warning and the current one kept; the next change tries again. Returns the stop.
 */
export function watchTlsFiles(server: Server, http: AppConfig["http"]): () => void {
  const logger = new Logger("Tls");
  const files = [http.tlsCertFile, http.tlsKeyFile].filter((file): file is string => file !== null);
  let timer: NodeJS.Timeout | null = null;
  const reload = () => {
    timer = null;
    try {
      const pair = readTlsFiles(http);
      if (!pair) return;
      server.setSecureContext(pair);
      logger.log(`TLS certificate reloaded from ${http.tlsCertFile}`);
    } catch (error) {
      logger.warn(`TLS certificate not reloaded, keeping the current one: ${(error as Error).message}`);
    }
  };
  const changed = () => {
    // The certificate and the key are usually replaced one after the other: read them once both are.
    if (timer) clearTimeout(timer);
    timer = setTimeout(reload, 200);
  };
  for (const file of files) watchFile(file, { interval: WATCH_INTERVAL_MS, persistent: false }, changed);
  const stop = () => {
    if (timer) clearTimeout(timer);
    for (const file of files) unwatchFile(file, changed);
  };
  server.once("close", stop);
  return stop;
}

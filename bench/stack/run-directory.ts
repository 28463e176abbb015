import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder for one run's process logs, kept after the run so a failure can be read. */
export function runDirectory(purpose: string): string {
  return mkdtempSync(join(tmpdir(), `ticket-registry-${purpose}-`));
}

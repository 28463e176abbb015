import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh folder for the logs of the processes one run starts. */
export interface RunDirectory {
  path: string;
  /** Removes the folder after a run that passed; a failed run's logs stay, and the folder is named. */
  finish: (passed: boolean) => void;
}

export function runDirectory(purpose: string): RunDirectory {
  const path = mkdtempSync(join(tmpdir(), `ticket-registry-${purpose}-`));
  return {
    path,
    finish: (passed) => {
      if (passed) rmSync(path, { recursive: true, force: true });
      else console.error(`Process logs of the failed run: ${path}`);
    },
  };
}

import { afterAll } from "vitest";

import { runningOwnedProcesses } from "../../scripts/stack/owned-process";
import { openTestApps } from "./test-app";

/** How long a process stopped at the file's very end may take to be seen gone. */
const EXIT_GRACE_MS = 5_000;

/**
 * A setup file of the end-to-end projects, whose files share their Vitest worker (`isolate: false`
 * in vitest.config.mts): an app or a child process one file leaves running would go on through the
 * files after it, polling its chain, holding connections and ports. Registered before the file's
 * own hooks, this runs after them: a file that left an app or a process running fails, and what it
 * left is stopped.
 */
afterAll(async () => {
  const apps = openTestApps();
  await Promise.allSettled(apps.map((app) => app.close()));
  const processes = await stillRunning();
  await Promise.allSettled(processes.map((owned) => owned.stop("SIGKILL")));
  const left = [...apps.map((app) => `an app at ${app.baseUrl}`), ...processes.map((owned) => `${owned.name} (pid ${owned.pid})`)];
  if (left.length > 0) throw new Error(`the file left running: ${left.join(", ")}; stop them in its afterAll`);
});

async function stillRunning() {
  const deadline = Date.now() + EXIT_GRACE_MS;
  while (runningOwnedProcesses().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return runningOwnedProcesses();
}

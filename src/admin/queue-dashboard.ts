import { createBullBoard } from "@bull-board/api";
import { BullAdapter } from "@bull-board/api/bullAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { INestApplication } from "@nestjs/common";
import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";

import { CHAIN_WRITER_QUEUE } from "../chain/queue/chain-writer.queue";
import type { AppConfig } from "../config/app-config";
import { adminOnly } from "./admin-credential";

export const QUEUE_DASHBOARD_PATH = "/admin/queues";

/**
 * Bull's dashboard behind HTTP basic auth with the admin credential from the configuration. Queues
 * only carry work (the ledger is the truth), so retrying or removing a job here never loses an action.
 */
export function mountQueueDashboard(app: INestApplication, admin: AppConfig["admin"]): boolean {
  if (admin.password === null) return false;
  const board = new ExpressAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  const queues = [app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE))];
  createBullBoard({ queues: queues.map((queue) => new BullAdapter(queue)), serverAdapter: board });
  // The admin credential is checked for everything under /admin in app.setup.ts; again here, so the dashboard never depends on the order.
  app.use(QUEUE_DASHBOARD_PATH, adminOnly(admin), board.getRouter());
  return true;
}

import { createBullBoard } from "@bull-board/api";
import { BullAdapter } from "@bull-board/api/bullAdapter";
import { ExpressAdapter } from "@bull-board/express";
import type { INestApplication } from "@nestjs/common";
import type { NextFunction, Request, Response } from "express";
import { getQueueToken } from "@nestjs/bull";
import type { Queue } from "bull";

import { CHAIN_WRITER_QUEUE } from "../chain/queue/chain-writer.queue";
import type { AppConfig } from "../config/app-config";
import { AdminGate } from "./admin-gate";
import { sameOriginChanges } from "./same-origin-changes";

export const QUEUE_DASHBOARD_PATH = "/admin/queues";

/**
 * Bull's dashboard behind HTTP basic auth with the admin credential from the configuration. Queues
 * only carry work (the ledger is the truth), so retrying or removing a job here never loses an action;
 * but a paused queue stalls every chain write, so the dashboard only shows unless ADMIN_QUEUE_WRITE,
 * and a change must come from the dashboard's own page (sameOriginChanges).
 */
export function mountQueueDashboard(app: INestApplication, admin: AppConfig["admin"]): boolean {
  if (admin.password === null) return false;
  const board = new ExpressAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  const queues = [app.get<Queue>(getQueueToken(CHAIN_WRITER_QUEUE))];
  createBullBoard({ queues: queues.map((queue) => new BullAdapter(queue, { readOnlyMode: !admin.queueWrite })), serverAdapter: board });
  // The admin credential is checked for everything under /admin in app.setup.ts; again here, so the dashboard never depends on the order.
  const changes = admin.queueWrite ? sameOriginChanges() : refuseChanges;
  app.use(QUEUE_DASHBOARD_PATH, app.get(AdminGate).adminOnly(), changes, board.getRouter());
  return true;
}

/** Read-only: Bull Board's adapters refuse their own changes too; this also covers any route they forget. */
function refuseChanges(request: Request, response: Response, next: NextFunction): void {
  if (request.method === "GET" || request.method === "HEAD") return next();
  response.status(405).json({ message: "The queue dashboard is read-only: set ADMIN_QUEUE_WRITE=true to change queues.", code: "queue_dashboard_read_only" });
}

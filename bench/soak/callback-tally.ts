import { Webhook } from "standardwebhooks";

import type { ReceivedCallback } from "../callback-sink";

/** One callback (one webhook-id) as the receiver saw it, every delivery of it. */
export interface SeenCallback {
  webhookId: string;
  actionPromise: string;
  status: string;
  errorCode: string | null;
  receivedAt: number[];
}

/**
 * The receiver's side of the story: every delivery by webhook-id, each signature verified with the
 * organization's secret by the Standard Webhooks reference library, as an integrator would.
 */
export class CallbackTally {
  readonly byWebhookId = new Map<string, SeenCallback>();
  readonly rejected: { reason: string; at: number }[] = [];
  private readonly verifier: Webhook;

  constructor(webhookSecret: string) {
    this.verifier = new Webhook(webhookSecret);
  }

  get deliveries(): number {
    let total = 0;
    for (const seen of this.byWebhookId.values()) total += seen.receivedAt.length;
    return total;
  }

  receive(callback: ReceivedCallback): void {
    const headers = {
      "webhook-id": String(callback.headers["webhook-id"] ?? ""),
      "webhook-timestamp": String(callback.headers["webhook-timestamp"] ?? ""),
      "webhook-signature": String(callback.headers["webhook-signature"] ?? ""),
    };
    let body: { actionPromise?: string; status?: string; error?: { code?: string } | null };
    try {
      body = this.verifier.verify(callback.body, headers) as typeof body;
    } catch (error) {
      this.rejected.push({ reason: error instanceof Error ? error.message : String(error), at: callback.receivedAt });
      return;
    }
    const seen = this.byWebhookId.get(headers["webhook-id"]);
    if (seen) {
      seen.receivedAt.push(callback.receivedAt);
      return;
    }
    this.byWebhookId.set(headers["webhook-id"], {
      webhookId: headers["webhook-id"],
      actionPromise: String(body.actionPromise),
      status: String(body.status),
      errorCode: body.error?.code ?? null,
      receivedAt: [callback.receivedAt],
    });
  }
}

import { Injectable, type OnApplicationShutdown } from "@nestjs/common";

import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";
import { CallbackHttp, type DeliveryAnswer } from "../delivery/callback-http";
import { signedHeaders } from "../delivery/callback-signing";

/**
 * Sends a test callback from the API role, while the request waits: signed and POSTed exactly as
 * the workers deliver (CallbackHttp: https only, public addresses checked at connect time, no
 * redirects, CALLBACK_TIMEOUT_MS), once, never retried.
 */
@Injectable()
export class WebhookTestSender implements OnApplicationShutdown {
  private readonly http: CallbackHttp;

  constructor(@InjectConfig() config: AppConfig) {
    const { timeoutMs, allowHosts, dnsServers, dnsTimeoutMs } = config.callbacks;
    this.http = new CallbackHttp({ timeoutMs, allowHosts, dns: { servers: dnsServers, timeoutMs: dnsTimeoutMs } });
  }

  /** Never throws: whatever goes wrong is the answer. */
  async send(url: string, callbackId: string, body: string, secrets: readonly string[], sentAt: Date): Promise<DeliveryAnswer> {
    if (secrets.length === 0) return { statusCode: null, error: "the organization has no webhook secret to sign with", durationMs: 0, retryAfter: undefined };
    try {
      return await this.http.post(url, body, signedHeaders(callbackId, body, secrets, sentAt));
    } catch (error) {
      return { statusCode: null, error: `could not send: ${(error as Error).message}`, durationMs: Date.now() - sentAt.getTime(), retryAfter: undefined };
    }
  }

  onApplicationShutdown(): void {
    this.http.close();
  }
}

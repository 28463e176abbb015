import { Injectable, Logger, type OnModuleDestroy } from "@nestjs/common";
import { Client } from "pg";

import type { AppConfig } from "../../config/app-config";
import { InjectConfig } from "../../config/config.module";

/** The channel the change log's triggers notify on, once per transaction that logged a change. */
export const CHANGES_CHANNEL = "chain_action_changes";

const RECONNECT_MS = 2_000;

/**
 * One LISTEN connection per process, opened with the first live stream: wakes the streams when any
 * process (a worker confirming, an API accepting) commits a change. A wake-up is only a hint: the
 * streams also poll, so a notification lost while the connection was down delays nothing for long.
 */
@Injectable()
export class ActionChangesListener implements OnModuleDestroy {
  private readonly logger = new Logger("ActionChanges");
  private readonly wakers = new Set<() => void>();
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(@InjectConfig() private readonly config: AppConfig) {}

  /** Calls `wake` on every notification until the returned function is called. */
  subscribe(wake: () => void): () => void {
    this.wakers.add(wake);
    this.ensureConnected();
    return () => {
      this.wakers.delete(wake);
    };
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private ensureConnected(): void {
    if (this.stopped || this.client || this.connecting || this.reconnectTimer) return;
    this.connecting = this.connect().finally(() => {
      this.connecting = null;
    });
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.config.database.url, application_name: "trs-action-changes" });
    client.on("notification", () => {
      for (const wake of this.wakers) wake();
    });
    client.on("error", (error) => this.lost(client, error));
    client.on("end", () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
      if (this.stopped) {
        await client.end();
        return;
      }
      this.client = client;
      // Changes committed while nobody listened are found by the streams' next look.
      for (const wake of this.wakers) wake();
    } catch (error) {
      client.removeAllListeners("end");
      await client.end().catch(() => undefined);
      this.lost(null, error);
    }
  }

  private lost(client: Client | null, error: unknown): void {
    if (client !== null && this.client !== client) return;
    this.client = null;
    if (this.stopped) return;
    if (error) this.logger.warn(`LISTEN connection lost (${error instanceof Error ? error.message : "connection ended"}); streams poll until it is back`);
    if (this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.wakers.size > 0) this.ensureConnected();
    }, RECONNECT_MS);
  }
}

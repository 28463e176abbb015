import type { DataSource } from "typeorm";

import { ChainUnavailableError } from "../chain/chain-client";
import { ForeignPendingError, SignerBusyError, type SignerReconcileReport } from "../chain/writer/reconcile/signer-reconciler";
import { openSignerReconciler } from "../chain/writer/reconcile/standalone-signer-reconciler";
import type { AppConfig } from "../config/app-config";
import { RefusedError } from "./cli-errors";

/** `signer reconcile`: over the CLI's DataSource, its own chain connection and the writer's queue, closed after. */
export async function reconcileSigner(dataSource: DataSource, config: AppConfig, address: string): Promise<SignerReconcileReport> {
  const opened = openSignerReconciler(dataSource, config);
  try {
    return await opened.reconciler.reconcile(address);
  } catch (error) {
    const refused = error instanceof SignerBusyError || error instanceof ForeignPendingError || error instanceof ChainUnavailableError;
    throw refused ? new RefusedError(error.message) : error;
  } finally {
    await opened.close();
  }
}

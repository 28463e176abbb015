import { AsyncLocalStorage } from "node:async_hooks";

import type { EntityManager } from "typeorm";

/** A step a request asks to run inside its acceptance transaction, before the commit. */
export type TransactionHook = (manager: EntityManager) => Promise<void>;

const hooks = new AsyncLocalStorage<TransactionHook>();

/**
 * Runs `work` with `hook` as the step every acceptance transaction it starts runs before committing:
 * a request's Idempotency-Key is marked applied in the same transaction as its actions, so a request
 * cut short (a crash, a lost connection) is known to have applied all of them or none.
 */
export function withTransactionHook<T>(hook: TransactionHook, work: () => T): T {
  return hooks.run(hook, work);
}

export function transactionHook(): TransactionHook | undefined {
  return hooks.getStore();
}

import type { OrganizationsService } from "../auth/organizations.service";
import type { OrganizationOnboardingService } from "../callbacks/secrets/organization-onboarding.service";
import type { SignerReconcileReport } from "../chain/writer/reconcile/signer-reconciler";
import type { LedgerReconciler } from "../chain/ledger-reconcile/ledger-reconciler";
import type { UsageService } from "../usage/usage.service";

/** Every option any command takes; each command says which of them it accepts. */
export const OPTIONS = {
  name: { type: "string" },
  label: { type: "string" },
  scope: { type: "string" },
  "allow-ip": { type: "string" },
  "grace-hours": { type: "string" },
  report: { type: "string" },
  from: { type: "string" },
  to: { type: "string" },
  "group-by": { type: "string" },
  csv: { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** What a string option's value is, in the usage, where its name does not say it. */
export const OPTION_VALUES: Partial<Record<StringOptionName, string>> = {
  scope: "full|scan|read",
  "allow-ip": "CIDR,…",
  from: "date",
  to: "date",
  "group-by": "day|event",
};

export type OptionName = Exclude<keyof typeof OPTIONS, "help">;
export type StringOptionName = { [K in OptionName]: (typeof OPTIONS)[K]["type"] extends "string" ? K : never }[OptionName];

export interface CommandInput {
  /** Operands and required options by name; the parser has checked that each is there and not blank. */
  required: Record<string, string>;
  /** The optional string options that were given. */
  optional: Partial<Record<StringOptionName, string>>;
  json: boolean;
  /** The boolean options besides --json that were given (--csv). */
  flags: { csv: boolean };
}

/** What commands act through: organizations and keys (auth), onboarding with webhook secrets (callbacks), the chain writer's signers and the ledger against the chain. */
export interface CommandServices {
  organizations: OrganizationsService;
  onboarding: OrganizationOnboardingService;
  /** Connects to the chain and the queue only when called. */
  signers: { reconcile(address: string): Promise<SignerReconcileReport> };
  /** Made on first use: only the ledger's commands reach Redis and the chain. */
  ledger: { workers: () => Promise<number>; reconciler: () => LedgerReconciler };
  /** The usage statements, read from the database alone. */
  usage: UsageService;
}

export interface Command {
  /** The words that select it, e.g. "key create". */
  name: string;
  summary: string;
  operands: readonly string[];
  requiredOptions: readonly StringOptionName[];
  optionalOptions: readonly OptionName[];
  run(services: CommandServices, input: CommandInput): Promise<void>;
}

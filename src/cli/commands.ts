import { parseAllowedIps } from "../auth/allowed-ips";
import type { KeyGrant } from "../auth/organizations.service";
import { keyScopeProblem, type KeyScope } from "../auth/key-scope";
import { clientIdProblem } from "../common/validation/client-id";
import type { Command } from "./command";
import { RefusedError } from "./cli-errors";
import { ledgerReconcile } from "./ledger-commands";
import { usageReport } from "./usage-commands";
import { print, printIssuedKey, printJson, printSecret, printTable, timestamp } from "./output";

const orgCreate: Command = {
  name: "org create",
  summary: "Register an organization (a ticketing company) under the ticketeerId it was issued.",
  operands: ["ticketeerId"],
  requiredOptions: ["name"],
  optionalOptions: [],
  async run({ onboarding }, { required }) {
    // The ticketeerId is an id the API takes (POST /api/v1/events names it): the same rule as every id.
    const problem = clientIdProblem(required.ticketeerId);
    if (problem) throw new RefusedError(`ticketeerId ${problem}`);
    const organization = await onboarding.createOrganization(required.ticketeerId, required.name);
    print(`Created organization ${organization.ticketeerId} (${organization.name}).`);
    printSecret("webhook secret", organization.webhookSecret);
  },
};

const orgList: Command = {
  name: "org list",
  summary: "List the organizations, oldest first.",
  operands: [],
  requiredOptions: [],
  optionalOptions: ["json"],
  async run({ organizations }, { json }) {
    const rows = (await organizations.listOrganizations()).map(({ ticketeerId, name, createdAt }) => ({ ticketeerId, name, createdAt }));
    if (json) return printJson(rows);
    if (rows.length === 0) return print("No organizations yet.");
    printTable(
      ["TICKETEER ID", "NAME", "CREATED"],
      rows.map((row) => [row.ticketeerId, row.name, timestamp(row.createdAt)]),
    );
  },
};

const keyCreate: Command = {
  name: "key create",
  summary:
    "Issue a new API key to an organization; the key is printed once. --scope full (the default), scan (check-ins and reads: a door " +
    "scanner's) or read (GETs and the live status stream); --allow-ip 203.0.113.0/24,2001:db8::/48 refuses its requests from elsewhere.",
  operands: ["ticketeerId"],
  requiredOptions: [],
  optionalOptions: ["label", "scope", "allow-ip", "json"],
  async run({ organizations }, { required, optional, json }) {
    const grant = keyGrant(optional.scope, optional["allow-ip"]);
    printIssuedKey(await organizations.issueKey(required.ticketeerId, optional.label, grant), json);
  },
};

/** The operator's --scope and --allow-ip, checked here so that a mistake names the option. */
function keyGrant(scope: string | undefined, allowIp: string | undefined): KeyGrant {
  const scopeProblem = scope === undefined ? null : keyScopeProblem(scope);
  if (scopeProblem) throw new RefusedError(`--scope ${scopeProblem}`);
  if (allowIp === undefined) return { scope: scope as KeyScope | undefined };
  const parsed = parseAllowedIps(allowIp);
  if (parsed.problem !== undefined) throw new RefusedError(`--allow-ip ${parsed.problem}`);
  return { scope: scope as KeyScope | undefined, allowedIps: parsed.ranges };
}

const keyList: Command = {
  name: "key list",
  summary: "List an organization's keys by prefix, with each one's scope, allowed IP ranges and last use (to the minute); secrets are never shown.",
  operands: ["ticketeerId"],
  requiredOptions: [],
  optionalOptions: ["json"],
  async run({ organizations }, { required, json }) {
    // Fields are picked one by one so that the stored hash can never reach the output.
    const keys = await organizations.listKeys(required.ticketeerId);
    const rows = keys.map(({ prefix, label, scope, allowedIps, createdAt, lastUsedAt, revokedAt }) => ({
      prefix,
      label,
      scope,
      allowedIps,
      createdAt,
      lastUsedAt,
      revokedAt,
    }));
    if (json) return printJson(rows);
    if (rows.length === 0) return print(`No keys for ${required.ticketeerId} yet.`);
    printTable(
      ["PREFIX", "LABEL", "SCOPE", "ALLOWED IPS", "CREATED", "LAST USED", "REVOKED"],
      rows.map((row) => [
        row.prefix,
        row.label || "-",
        row.scope,
        row.allowedIps?.join(",") ?? "any",
        timestamp(row.createdAt),
        timestamp(row.lastUsedAt),
        timestamp(row.revokedAt),
      ]),
    );
  },
};

const keyRevoke: Command = {
  name: "key revoke",
  summary: "Revoke a key; it stops working at once.",
  operands: ["prefix"],
  requiredOptions: [],
  optionalOptions: [],
  async run({ organizations }, { required }) {
    await organizations.revokeKey(required.prefix);
    print(`Revoked key ${required.prefix}: it no longer authenticates.`);
  },
};

const keyRotate: Command = {
  name: "key rotate",
  summary: "Replace a key with a new one (same organization, label, scope and allowed IP ranges); the old one stops working at once.",
  operands: ["prefix"],
  requiredOptions: [],
  optionalOptions: ["json"],
  async run({ organizations }, { required, json }) {
    const issued = await organizations.rotateKey(required.prefix);
    if (!json) print(`Revoked key ${required.prefix}; its replacement:`);
    printIssuedKey(issued, json);
  },
};

const secretRotate: Command = {
  name: "secret rotate",
  summary: "Issue a new webhook signing secret; the current ones keep signing for --grace-hours (default 24).",
  operands: ["ticketeerId"],
  requiredOptions: [],
  optionalOptions: ["grace-hours"],
  async run({ onboarding }, { required, optional }) {
    const graceHours = Number(optional["grace-hours"] ?? 24);
    if (!Number.isInteger(graceHours) || graceHours < 0 || graceHours > 720)
      throw new RefusedError("--grace-hours must be a whole number of hours from 0 to 720");
    const secret = await onboarding.rotateWebhookSecret(required.ticketeerId, graceHours);
    print(`Callbacks are signed with both the new and the current secrets for ${graceHours} h, then with the new one only.`);
    printSecret("webhook secret", secret);
  },
};

const secretEncrypt: Command = {
  name: "secret encrypt",
  summary: "Encrypt the webhook secrets stored before WEBHOOK_SECRETS_KEY was set, with that key.",
  operands: [],
  requiredOptions: [],
  optionalOptions: [],
  async run({ onboarding }) {
    const count = await onboarding.encryptStoredWebhookSecrets();
    print(count === 0 ? "Every webhook secret is already stored encrypted." : `Encrypted ${count} webhook secret${count === 1 ? "" : "s"}.`);
  },
};

const signerReconcile: Command = {
  name: "signer reconcile",
  summary:
    "Let a signer stopped because the chain took its nonces elsewhere sign again: its own transactions found mined are marked so, " +
    "the nonces the chain took otherwise are given up (their actions and every later one wait again, in order), and it follows the chain's nonce.",
  operands: ["address"],
  requiredOptions: [],
  optionalOptions: ["json"],
  async run({ signers }, { required, json }) {
    const report = await signers.reconcile(required.address);
    if (json) return printJson(report);
    if (!report.resumed) return print(`Signer ${report.signer} never wrote to this ledger: nothing to reconcile.`);
    print(`Signer ${report.signer} reconciled${report.stop ? ` (stopped since ${timestamp(report.stop.since)}: ${report.stop.reason})` : ""}.`);
    print(`  next nonce:  ${report.ledgerNonce} → ${report.nextNonce} (the chain counts ${report.chainNonce}, ${report.chainMinedNonce} mined)`);
    print(`  found mined: ${report.markedMined.length === 0 ? "-" : report.markedMined.join(", ")}`);
    print(`  given up:    ${report.givenUp.length === 0 ? "-" : report.givenUp.map((nonce) => `${nonce.nonce} (${nonce.hashes.join(", ")})`).join("; ")}`);
    print(`  taken back:  ${report.withdrawn.length === 0 ? "-" : report.withdrawn.join(", ")}`);
    print(`  ${report.requeuedActions} action(s) wait again, in acceptance order; the signer signs again.`);
  },
};

export const COMMANDS: readonly Command[] = [
  orgCreate,
  orgList,
  keyCreate,
  keyList,
  keyRevoke,
  keyRotate,
  secretRotate,
  secretEncrypt,
  signerReconcile,
  ledgerReconcile,
  usageReport,
];

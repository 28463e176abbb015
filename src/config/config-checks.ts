import { isIP } from "node:net";

import { publicBaseUrlProblem } from "../common/public-urls";
import type { AppConfig } from "./config-types";

const MIN_ADMIN_PASSWORD_LENGTH = 16;

/**
 * The rules a configuration must keep once every variable is read: what production refuses, what
 * one setting requires of another, and where signer keys are needed. Returns the problems in a
 * fixed order, after the variables' own.
 */
export function configProblems(config: AppConfig): string[] {
  const problems: string[] = [];
  checkDevSeed(config, problems);
  checkChain(config, problems);
  checkCallbacks(config, problems);
  checkSecretsKey(config, problems);
  checkHttp(config, problems);
  checkListening(config, problems);
  checkPublicBaseUrl(config, problems);
  if (config.admin.password !== null && config.admin.password.length < MIN_ADMIN_PASSWORD_LENGTH) {
    problems.push(`ADMIN_PASSWORD must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
  }
  if (config.callbacks.leaseMs <= config.callbacks.timeoutMs) problems.push("CALLBACK_LEASE_MS must be longer than CALLBACK_TIMEOUT_MS");
  if (config.callbacks.dnsTimeoutMs >= config.callbacks.timeoutMs) problems.push("CALLBACK_DNS_TIMEOUT_MS must be shorter than CALLBACK_TIMEOUT_MS");
  return problems;
}

/**
 * Where the API runs in production, its public address is configured: without it the tokens' links
 * would have to come from somewhere a client controls (the Host header) or name an internal address.
 * The worker serves no tokens and needs none.
 */
function checkPublicBaseUrl(config: AppConfig, problems: string[]): void {
  const { publicBaseUrl, mode, role } = config.app;
  if (publicBaseUrl === null) {
    if (mode === "production" && role !== "worker") {
      problems.push(
        "PUBLIC_BASE_URL is required in production mode where the API runs (APP_ROLE api or all): set it to the api's public address, " +
          "such as PUBLIC_BASE_URL=https://tickets.example.com. Tokens' external_url and the collection's external_link are built from it, " +
          "never from a request's Host header",
      );
    }
    return;
  }
  const problem = publicBaseUrlProblem(publicBaseUrl);
  if (problem) problems.push(`PUBLIC_BASE_URL: ${problem}`);
}

/** HOST is an address to bind, not a name to look up; the operations port is a port of its own. */
function checkListening(config: AppConfig, problems: string[]): void {
  const { host, port, opsPort, role } = config.app;
  if (isIP(host) === 0) problems.push(`HOST must be an IP address to listen on (127.0.0.1, 0.0.0.0, ::), got "${host}"`);
  if (role !== "worker" && port !== 0 && port === opsPort)
    problems.push(`OPS_PORT must differ from PORT (both ${port}): the operations endpoints are served apart from the API`);
}

/**
 * TLS needs both files; TRUST_PROXY takes what Express's "trust proxy" takes (a typo must not
 * silently trust nobody, or everybody); the headers are part of the request, so their time cannot
 * be the longer one.
 */
function checkHttp(config: AppConfig, problems: string[]): void {
  const { tlsCertFile, tlsKeyFile, trustProxy, headersTimeoutMs, requestTimeoutMs } = config.http;
  if ((tlsCertFile === null) !== (tlsKeyFile === null)) problems.push("TLS_CERT_FILE and TLS_KEY_FILE go together: set both or neither");
  if (headersTimeoutMs > requestTimeoutMs) problems.push("HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS");
  for (const entry of trustProxy) {
    if (!TRUST_PROXY_KEYWORDS.has(entry) && !isAddressOrCidr(entry)) {
      problems.push(`TRUST_PROXY entry "${entry}" is not an IP address, a CIDR range or one of ${[...TRUST_PROXY_KEYWORDS].join(", ")}`);
    }
  }
}

const TRUST_PROXY_KEYWORDS = new Set(["loopback", "linklocal", "uniquelocal"]);

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** The playground seed is for a developer's machine only; production refuses it outright. */
function checkDevSeed(config: AppConfig, problems: string[]): void {
  const { ticketeerId, apiKey } = config.dev;
  if (config.app.mode === "production" && (ticketeerId || apiKey)) {
    problems.push("DEV_TICKETEER_ID and DEV_API_KEY are refused in production mode");
  }
  if ((ticketeerId === null) !== (apiKey === null)) {
    problems.push("DEV_TICKETEER_ID and DEV_API_KEY go together: set both or neither");
  }
  if (apiKey !== null && apiKey.length < 24) problems.push("DEV_API_KEY must be at least 24 characters");
}

/** A chain needs its registry everywhere, and signer keys where the writer runs. */
function checkChain(config: AppConfig, problems: string[]): void {
  const { chain, app } = config;
  if (chain.registryAddress !== null && !/^0x[0-9a-fA-F]{40}$/.test(chain.registryAddress)) {
    problems.push("REGISTRY_ADDRESS must be a 0x-prefixed 20-byte address");
  }
  for (const [index, key] of chain.signerKeys.entries()) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(key)) problems.push(`SIGNER_PRIVATE_KEYS entry ${index + 1} is not a 0x-prefixed 32-byte hex key`);
  }
  if (new Set(chain.signerKeys.map((key) => key.toLowerCase())).size !== chain.signerKeys.length) {
    problems.push("SIGNER_PRIVATE_KEYS lists a key twice");
  }
  checkRemoteSigner(chain, problems);
  if (new Set(chain.rpcUrls).size !== chain.rpcUrls.length) problems.push("CHAIN_RPC_URLS lists a URL twice");
  const { minPriorityFeeWei, maxFeePerGasWei } = chain.fees;
  if (maxFeePerGasWei !== null && maxFeePerGasWei < minPriorityFeeWei) problems.push("MAX_FEE_PER_GAS_GWEI must not be below MIN_PRIORITY_FEE_GWEI");
  if (chain.rpcUrl === null) {
    if (app.mode === "production") problems.push("CHAIN_RPC_URL is required in production mode");
    return;
  }
  if (chain.registryAddress === null) problems.push("REGISTRY_ADDRESS is required with CHAIN_RPC_URL");
  if (app.role !== "api" && chain.signerKeys.length === 0 && chain.signerRemoteUrl === null)
    problems.push("SIGNER_PRIVATE_KEYS (or SIGNER_REMOTE_URL with SIGNER_ADDRESSES) is required where the chain writer runs (APP_ROLE worker or all)");
  if (chain.crashAt !== null && app.mode === "production") problems.push("CHAIN_WRITER_CRASH_AT is a test hook and is refused in production mode");
}

/** Keys in the environment or a remote signer that holds them, not both; the signer's accounts listed once each. */
function checkRemoteSigner(chain: AppConfig["chain"], problems: string[]): void {
  for (const [index, address] of chain.signerAddresses.entries()) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(address)) problems.push(`SIGNER_ADDRESSES entry ${index + 1} is not a 0x-prefixed 20-byte address`);
  }
  if (new Set(chain.signerAddresses.map((address) => address.toLowerCase())).size !== chain.signerAddresses.length) {
    problems.push("SIGNER_ADDRESSES lists an address twice");
  }
  if (chain.signerRemoteUrl !== null && chain.signerKeys.length > 0) problems.push("SIGNER_PRIVATE_KEYS and SIGNER_REMOTE_URL: set one of them, not both");
  if ((chain.signerRemoteUrl === null) !== (chain.signerAddresses.length === 0)) {
    problems.push("SIGNER_REMOTE_URL and SIGNER_ADDRESSES go together: the remote signer and the accounts it signs for");
  }
}

/** Shortcuts that tests and development need would weaken callbacks in production. */
function checkCallbacks(config: AppConfig, problems: string[]): void {
  if (config.app.mode !== "production") return;
  if (config.callbacks.allowHosts.length > 0) problems.push("CALLBACK_ALLOW_HOSTS lets callbacks reach private addresses: refused in production mode");
  if (config.callbacks.retryScale !== 1) problems.push("CALLBACK_RETRY_SCALE shortens the callbacks' retry schedule: refused in production mode");
  if (config.dev.webhookSecret) problems.push("DEV_WEBHOOK_SECRET is refused in production mode");
}

/** Webhook secrets are stored encrypted wherever it matters: production refuses to store them readable. */
function checkSecretsKey(config: AppConfig, problems: string[]): void {
  const key = config.callbacks.secretsKey;
  if (key === null) {
    if (config.app.mode === "production")
      problems.push("WEBHOOK_SECRETS_KEY is required in production mode (base64 of 32 random bytes: openssl rand -base64 32)");
    return;
  }
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, "base64").length !== 32) {
    problems.push("WEBHOOK_SECRETS_KEY must be base64 of exactly 32 bytes (openssl rand -base64 32)");
  }
}

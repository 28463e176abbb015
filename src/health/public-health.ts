/** A health check's result as Terminus gives it: the status, and each indicator's details in info, error and details. */
interface HealthResult {
  status?: unknown;
  info?: Record<string, Record<string, unknown>>;
  error?: Record<string, Record<string, unknown>>;
  details?: Record<string, Record<string, unknown>>;
}

/**
 * What an indicator may say that points into the network: an error's message ("connect ECONNREFUSED
 * 10.0.3.7:8545"), the JSON-RPC endpoints by host and port.
 */
const LOCATING_DETAILS = ["message", "endpoints"];

/**
 * What readiness shows without the admin credential: every indicator and its status (which check
 * failed), but not where it points (LOCATING_DETAILS) and no signer addresses, balances or nonces. signerFunds keeps how many signers there are and how many are
 * short; chainWriter how many are stuck; signerNonces how many are stopped. The admin credential (basic auth) gets the whole result.
 */
export function publicHealth<T>(result: T): T {
  const { info, error, details, ...rest } = result as HealthResult;
  return { ...rest, ...section("info", info), ...section("error", error), ...section("details", details) } as T;
}

function section(name: string, indicators: HealthResult["info"]): Record<string, unknown> {
  if (indicators === undefined) return {};
  return { [name]: Object.fromEntries(Object.entries(indicators).map(([key, value]) => [key, redact(key, value)])) };
}

function redact(indicator: string, value: Record<string, unknown>): Record<string, unknown> {
  if (indicator === "signerFunds") {
    const signers = Object.values((value.signers ?? {}) as Record<string, { status?: string }>);
    return {
      status: value.status,
      checked: value.checked,
      ...(value.checkedAt === undefined ? {} : { checkedAt: value.checkedAt }),
      signers: signers.length,
      shortSigners: signers.filter((signer) => signer.status === "short").length,
    };
  }
  if (indicator === "chainWriter") {
    const stuck = Object.keys(value.stuckSigners ?? {}).length;
    return { status: value.status, stuckSigners: stuck, ...(stuck > 0 ? { reason: `${stuck} signer(s) stuck` } : {}) };
  }
  if (indicator === "signerNonces") {
    const stopped = Object.keys(value.stoppedSigners ?? {}).length;
    return {
      status: value.status,
      stoppedSigners: stopped,
      ...(stopped > 0 ? { reason: `${stopped} signer(s) stopped: the chain took nonces the ledger does not know` } : {}),
    };
  }
  return Object.fromEntries(Object.entries(value).filter(([key]) => !LOCATING_DETAILS.includes(key)));
}

import type { FaultRecord } from "../faults/fault-schedule";
import type { LoadRecord } from "../load-record";
import { type CheckLine, countsOf, verdict } from "./check-line";

/**
 * While PostgreSQL is unreachable the API answers 503 with Retry-After, never a 500: the answers to
 * the requests sent during an outage (from its start to its end), by status.
 */
export function checkDatabaseOutageAnswers(record: LoadRecord, faults: FaultRecord[]): CheckLine[] {
  const outages = faults.filter((fault) => fault.kind === "PostgreSQL unreachable");
  if (outages.length === 0) return [];
  const during = record.requests.filter((request) => outages.some((outage) => request.startedAt >= outage.startedAt && request.startedAt <= outage.endedAt));
  const internalErrors = during.filter((request) => request.status === 500).length;
  return [
    verdict(
      internalErrors === 0 && during.some((request) => request.status === 503),
      "requests during a PostgreSQL outage answered 503, none 500",
      `${during.length} requests in ${outages.length} outage(s): ${countsOf(during.map((request) => (request.status === null ? "no answer" : `HTTP ${request.status}`)))}`,
    ),
  ];
}

/**
 * The receiver of a callbackUrl: `scheme://authority` in lower case, the unit of fairness. The
 * dispatcher counts callbacks in flight per receiver with receiverOf and the claim groups due
 * callbacks with receiverSql: the two must agree, so they are written side by side.
 */
const RECEIVER_PATTERN = "^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*";
const RECEIVER = new RegExp(RECEIVER_PATTERN);

export function receiverOf(url: string): string {
  return (RECEIVER.exec(url)?.[0] ?? url).toLowerCase();
}

/** receiverOf as SQL, over the text column `urlColumn`. */
export function receiverSql(urlColumn: string): string {
  return `lower(COALESCE(substring(${urlColumn} from '${RECEIVER_PATTERN}'), ${urlColumn}))`;
}

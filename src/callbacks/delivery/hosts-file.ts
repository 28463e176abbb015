import type { LookupAddress } from "node:dns";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";

/** The names of a hosts file (lower case) and their addresses, in the file's order. */
export type HostsTable = ReadonlyMap<string, readonly LookupAddress[]>;

const HOSTS_FILE = "/etc/hosts";

/**
 * The hosts file as getaddrinfo reads it ("files" before "dns"): `address name [aliases…]` per line,
 * `#` to the end of a line a comment. Lines whose address is not an IP address are skipped.
 */
export function parseHosts(text: string): HostsTable {
  const table = new Map<string, LookupAddress[]>();
  for (const line of text.split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    const family = isIP(address ?? "");
    if (family === 0) continue;
    for (const name of names.map((entry) => entry.toLowerCase())) {
      const addresses = table.get(name) ?? [];
      if (!addresses.some((known) => known.address === address)) addresses.push({ address, family });
      table.set(name, addresses);
    }
  }
  return table;
}

/** The system's hosts file, read once (at start, as the service reads its configuration); none if it cannot be read. */
export function readHostsFile(path = HOSTS_FILE): HostsTable {
  try {
    return parseHosts(readFileSync(path, "utf8"));
  } catch {
    return new Map();
  }
}

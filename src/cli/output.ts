import type { IssuedKey } from "../auth/organizations.service";

/** Data goes to stdout; progress notes go to stderr so that `--json` output can be piped as is. */
export function print(text: string): void {
  console.log(text);
}

/** Text printed as it is, its line ends included (CSV's CRLF). */
export function printRaw(text: string): void {
  process.stdout.write(text);
}

export function note(text: string): void {
  console.error(text);
}

export function printJson(value: unknown): void {
  print(JSON.stringify(value, null, 2));
}

export function printTable(headers: readonly string[], rows: readonly string[][]): void {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => row[column].length)));
  const lines = [headers, ...rows].map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join("  ")
      .trimEnd(),
  );
  print(lines.join("\n"));
}

export function timestamp(date: Date | null): string {
  return date ? date.toISOString() : "-";
}

/** The only moment the full key exists outside its owner's hands: say so plainly. */
export function printIssuedKey(issued: IssuedKey, json: boolean): void {
  if (json) {
    printJson(issued);
    note("Store this key now: it cannot be shown again.");
    return;
  }
  print(`key:    ${issued.key}`);
  print(`prefix: ${issued.prefix}`);
  print("Store this key now: it cannot be shown again. Only its prefix and a hash are kept.");
}

/** A webhook signing secret is shown once, when it is issued; the receiver needs it to verify callbacks. */
export function printSecret(label: string, secret: string): void {
  print(`${label}: ${secret}`);
  print("Give it to the organization's callback receiver now: it verifies the webhook-signature header with it.");
}

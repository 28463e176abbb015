import { createSocket, type RemoteInfo } from "node:dgram";

import ipaddr from "ipaddr.js";

/** What a name answers: its A and AAAA records, or "silent" for a record type whose queries get no answer at all. */
export interface TestDnsName {
  a?: string[] | "silent";
  aaaa?: string[] | "silent";
  /** The records' TTL in seconds; 0 by default (nothing may be cached). */
  ttl?: number;
}

/** Every query of a name never answered: a DNS server that does not reply, as a lookup that hangs sees it. */
export const SILENT: TestDnsName = { a: "silent", aaaa: "silent" };

export interface TestDnsServer {
  /** `127.0.0.1:port`, as CALLBACK_DNS_SERVERS takes it. */
  address: string;
  /** The queries received so far (`A name` or `AAAA name`), oldest first. */
  queries: (name?: string) => string[];
  close: () => Promise<void>;
}

const TYPES: Record<number, "A" | "AAAA"> = { 1: "A", 28: "AAAA" };
const NXDOMAIN = 3;
const NOTIMP = 4;

/**
 * A DNS server on UDP for tests: answers the names of `zone` (a name without records of a type gets
 * an empty answer, as DNS does), leaves the queries of a "silent" type unanswered and answers any
 * other name NXDOMAIN. Only what resolver tests need (one question, A and AAAA, no compression beyond
 * the answer's pointer to the question): a few lines of RFC 1035 rather than a packet library.
 */
export async function startTestDnsServer(zone: Record<string, TestDnsName>, host = "127.0.0.1", port = 0): Promise<TestDnsServer> {
  const socket = createSocket(host.includes(":") ? "udp6" : "udp4");
  const received: { name: string; type: string }[] = [];
  socket.on("message", (packet: Buffer, from: RemoteInfo) => {
    const question = parseQuestion(packet);
    if (!question) return;
    const type = TYPES[question.type];
    received.push({ name: question.name, type: type ?? String(question.type) });
    const entry = zone[question.name];
    const records = type === undefined ? undefined : entry?.[type === "A" ? "a" : "aaaa"];
    if (records === "silent") return;
    const rcode = type === undefined ? NOTIMP : entry === undefined ? NXDOMAIN : 0;
    socket.send(answer(packet, question.end, rcode, records ?? [], entry?.ttl ?? 0), from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, host, () => resolve());
  });
  const bound = socket.address().port;
  return {
    address: host.includes(":") ? `[${host}]:${bound}` : `${host}:${bound}`,
    queries: (name) => received.filter((query) => name === undefined || query.name === name).map((query) => `${query.type} ${query.name}`),
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The question of a query: its name (lower case), type, and where the question section ends. */
function parseQuestion(packet: Buffer): { name: string; type: number; end: number } | null {
  if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return null;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    if (offset >= packet.length) return null;
    const length = packet[offset++];
    if (length === 0) break;
    if (length > 63) return null;
    labels.push(packet.toString("latin1", offset, offset + length));
    offset += length;
  }
  if (offset + 4 > packet.length) return null;
  return { name: labels.join(".").toLowerCase(), type: packet.readUInt16BE(offset), end: offset + 4 };
}

/** A reply to `query`: its id and question, the rcode, and one record per address (the name a pointer to the question's). */
function answer(query: Buffer, questionEnd: number, rcode: number, addresses: string[], ttl: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR (a response), AA, RD as asked, RA; then the rcode.
  header.writeUInt16BE(0x8000 | 0x0400 | ((query[2] & 0x01) << 8) | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const bytes = Buffer.from(ipaddr.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(bytes.length === 4 ? 1 : 28, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(bytes.length, 10);
    return Buffer.concat([record, bytes]);
  });
  return Buffer.concat([header, query.subarray(12, questionEnd), ...records]);
}

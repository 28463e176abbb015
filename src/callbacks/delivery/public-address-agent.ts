import dns, { type LookupAddress } from "node:dns";
import { isIP, type LookupFunction, Socket, type TcpNetConnectOpts } from "node:net";
import type { Duplex } from "node:stream";

import { RequestFilteringHttpsAgent } from "request-filtering-agent";

import { nonPublicReason } from "../../common/validation/public-address";

type ConnectionListener = (error: Error | null, socket: Duplex) => void;

/**
 * request-filtering-agent with the service's own address test (public-address.ts, the one the
 * callbackUrl rule makes) in front of its own: the library judges by ipaddr.js's ranges, which let
 * IPv4-compatible IPv6 (`[::127.0.0.1]`, `::7f00:1`) and a few other special-purpose ranges through.
 * An IP-literal host is checked before any socket is created; a name, on every address its lookup
 * returns, inside the socket's own lookup (so before connecting, on every new connection). The
 * lookup given in the options (a custom resolver) is the one wrapped.
 */
export class PublicAddressAgent extends RequestFilteringHttpsAgent {
  override createConnection(options: TcpNetConnectOpts, listener?: ConnectionListener): Duplex | Socket {
    const host = options.host;
    const refused = typeof host === "string" && isIP(host.split("%")[0]) !== 0 ? refusal(host, host) : null;
    if (refused) return failedSocket(refused, listener);
    return super.createConnection({ ...options, lookup: publicOnly(options.lookup ?? dns.lookup) }, listener);
  }
}

/** A lookup that fails when any address the name resolves to is not public unicast. */
function publicOnly(lookup: LookupFunction): LookupFunction {
  return (
    hostname: string,
    options: dns.LookupOptions,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const refused = addresses.map((candidate) => refusal(candidate, hostname)).find((found) => found !== null);
      if (refused) return callback(refused, address, family);
      callback(null, address, family);
    });
}

function refusal(address: string, host: string): Error | null {
  const reason = nonPublicReason(address);
  return reason === null ? null : new Error(`${address} (host ${host}) is not allowed: it is ${reason}; callbacks go to public addresses only`);
}

/** As request-filtering-agent answers a refused IP literal: the error to the agent's callback, no connection attempted. */
function failedSocket(error: Error, listener?: ConnectionListener): Socket {
  const socket = new Socket();
  if (listener) listener(error, socket);
  else socket.destroy(error);
  return socket;
}

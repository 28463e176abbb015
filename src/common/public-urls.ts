/**
 * The public addresses of what a wallet reads about the registry's tokens, all under the service's
 * PUBLIC_BASE_URL: the registry's base URI (tokenURI = base URI + decimal tokenId), its contractURI
 * (ERC-7572) and the public page of each token (the metadata's external_url). Plain functions: the
 * deploy script and the Hardhat tasks use them too.
 */
export const TOKENS_PATH = "tokens";
export const COLLECTION_SEGMENT = "collection";
export const TOKEN_PAGE_PATH = "verify/tokens";

/** The base URI the registry's tokenURI starts with: `{PUBLIC_BASE_URL}/tokens/`. */
export function tokenBaseUri(publicBaseUrl: string): string {
  return `${trimmed(publicBaseUrl)}/${TOKENS_PATH}/`;
}

/** The registry's contractURI: `{PUBLIC_BASE_URL}/tokens/collection`. */
export function collectionUri(publicBaseUrl: string): string {
  return `${trimmed(publicBaseUrl)}/${TOKENS_PATH}/${COLLECTION_SEGMENT}`;
}

/** The public page of one token, addressed by tokenId: `{PUBLIC_BASE_URL}/verify/tokens/{tokenId}`. */
export function tokenPageUrl(publicBaseUrl: string, tokenId: bigint): string {
  return `${trimmed(publicBaseUrl)}/${TOKEN_PAGE_PATH}/${tokenId}`;
}

/**
 * Why `value` cannot be a PUBLIC_BASE_URL (an absolute http(s) URL with no query, fragment or
 * credentials), or null when it can.
 */
export function publicBaseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not an absolute URL`;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `"${value}" must be an http or https URL`;
  if (url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") {
    return `"${value}" must have no query, fragment or credentials`;
  }
  return null;
}

/** What `connectionBaseUrl` reads of the connection a request came on: the server's own end of it. */
export interface ConnectionEnd {
  /** TLS on the connection itself (not what a proxy's header says). */
  encrypted: boolean;
  localAddress: string | undefined;
  localPort: number | undefined;
}

/**
 * Where this server answered the request: `http(s)://{local address}:{local port}` of the connection,
 * what stands in for PUBLIC_BASE_URL outside production. Never the Host header nor a forwarded one,
 * which the client chooses: an answer that others may cache must not carry an address of the sender's
 * choosing. An IPv4 address on a dual-stack socket (::ffff:127.0.0.1) is written as IPv4.
 */
export function connectionBaseUrl(connection: ConnectionEnd): string {
  const address = (connection.localAddress ?? "127.0.0.1").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  const host = address.includes(":") ? `[${address}]` : address;
  return `${connection.encrypted ? "https" : "http"}://${host}${connection.localPort === undefined ? "" : `:${connection.localPort}`}`;
}

function trimmed(publicBaseUrl: string): string {
  return publicBaseUrl.replace(/\/+$/, "");
}

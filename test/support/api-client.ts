/** A thin JSON client for the tests: answers carry status, headers and the parsed body. */
export interface ApiAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export function apiClient(baseUrl: string, apiKey?: string) {
  const request = async <T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer<T>> => {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { "content-type": "application/json", ...(apiKey ? { "x-api-key": apiKey } : {}), ...headers },
      body: bodyOf(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  return {
    request,
    get: <T = any>(path: string) => request<T>("GET", path),
    post: <T = any>(path: string, body: unknown) => request<T>("POST", path, body),
    patch: <T = any>(path: string, body: unknown) => request<T>("PATCH", path, body),
    delete: <T = any>(path: string) => request<T>("DELETE", path),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/** A string or bytes go as they are (raw JSON, a compressed body); anything else as JSON. */
function bodyOf(body: unknown): string | Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined || typeof body === "string") return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  return JSON.stringify(body);
}

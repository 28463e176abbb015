/** A POST to the service with the organization's key; throws with the answer unless it is 2xx. */
export function poster(baseUrl: string, apiKey: string) {
  return async (path: string, body: unknown): Promise<void> => {
    const response = await fetch(baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  };
}

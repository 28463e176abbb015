import { describe, expect, it } from "vitest";

import { apiKeyMatches, apiKeyPrefix, generateApiKey, hashApiKey } from "./api-key-secret";

describe("API key secrets", () => {
  it("generates distinct keys with a 12-character lookup prefix", () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(key).toMatch(/^trk_[A-Za-z0-9_-]{8}_[A-Za-z0-9_-]{43}$/);
      expect(apiKeyPrefix(key)).toBe(key.slice(0, 12));
    }
  });

  it("stores only the SHA-256 and matches the exact key", () => {
    const key = generateApiKey();
    const stored = hashApiKey(key);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(key.slice(13));
    expect(apiKeyMatches(key, stored)).toBe(true);
    expect(apiKeyMatches(key + "x", stored)).toBe(false);
    expect(apiKeyMatches(key.slice(0, -1), stored)).toBe(false);
  });
});

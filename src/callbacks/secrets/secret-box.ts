import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const SEALED_PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts secrets the service must read back (webhook signing secrets) with AES-256-GCM under a
 * key from the configuration, bound to their owner: a sealed value copied to another organization's
 * row does not open. Values stored before a key was configured are plain and read as they are.
 */
export class SecretBox {
  constructor(private readonly key: Buffer | null) {
    if (key !== null && key.length !== 32) throw new Error("the secrets key must be 32 bytes");
  }

  get encrypts(): boolean {
    return this.key !== null;
  }

  /** The value to store: sealed when a key is configured, else the plain secret. */
  seal(secret: string, owner: string): string {
    if (this.key === null) return secret;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(owner));
    const encrypted = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), encrypted]).toString("base64");
  }

  /** The secret a stored value holds; throws when it is sealed and cannot be opened with this key. */
  open(stored: string, owner: string): string {
    if (!isSealed(stored)) return stored;
    if (this.key === null) throw new Error("a webhook secret is encrypted but WEBHOOK_SECRETS_KEY is not set");
    const sealed = Buffer.from(stored.slice(SEALED_PREFIX.length), "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(owner));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new Error("a webhook secret does not open with WEBHOOK_SECRETS_KEY (another key, or the value was altered)");
    }
  }
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(SEALED_PREFIX);
}

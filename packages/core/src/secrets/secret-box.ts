import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from '../errors.ts';

const PREFIX = 'muse-secret:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;

interface Key {
  id: string;
  bytes: Buffer;
}

/**
 * Secrets at rest (code-provider, generator and payment secrets): each value is sealed in an
 * AES-256-GCM envelope, `muse-secret:v1:<key id>:<wrapped data key>:<ciphertext>`. A fresh
 * data key encrypts the value; the first key of MUSE_SECRETS_KEY encrypts the data key. Every
 * listed key opens, so a new key goes first and the old one stays until `muse-server secrets
 * rotate` has resealed everything. A value without the prefix was stored before encryption
 * existed and is read as it is (rotate seals it).
 */
export interface SecretBox {
  seal(value: unknown): string;
  open(stored: unknown): unknown;
  /** Seals every non-null value of a record (null means "remove" to the callers and stays null). */
  sealValues<T extends Record<string, unknown>>(record: T): Record<keyof T, unknown>;
  openValues(record: Record<string, unknown>): Record<string, unknown>;
  /** Whether a stored value is plain text or sealed under a key other than the first. */
  needsResealing(stored: unknown): boolean;
}

export class SecretsKeyError extends AppError {
  constructor(message: string) {
    super(503, 'secrets_unavailable', message);
  }
}

/** MUSE_SECRETS_KEY: comma-separated base64 keys of 32 bytes each; throws naming a bad one. */
export function parseSecretKeys(setting: string | undefined): Key[] {
  return (setting ?? '')
    .split(',')
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text, index) => {
      const bytes = Buffer.from(text, 'base64');
      if (bytes.length !== 32)
        throw new Error(`MUSE_SECRETS_KEY: key ${index + 1} is not 32 bytes of base64`);
      return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), bytes };
    });
}

function encrypt(key: Buffer, plain: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function decrypt(key: Buffer, sealed: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  return Buffer.concat([
    decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)),
    decipher.final(),
  ]);
}

const isSealed = (stored: unknown): stored is string =>
  typeof stored === 'string' && stored.startsWith(PREFIX);

export function createSecretBox(setting: string | undefined): SecretBox {
  const keys = parseSecretKeys(setting);
  const current = () => {
    if (!keys[0]) throw new SecretsKeyError('Secrets cannot be stored: MUSE_SECRETS_KEY is not set');
    return keys[0];
  };
  const box: SecretBox = {
    seal(value) {
      const key = current();
      const dataKey = randomBytes(32);
      const wrapped = encrypt(key.bytes, dataKey);
      return `${PREFIX}${key.id}:${wrapped}:${encrypt(dataKey, Buffer.from(JSON.stringify(value)))}`;
    },
    open(stored) {
      if (!isSealed(stored)) return stored;
      const [keyId, wrapped, sealed] = stored.slice(PREFIX.length).split(':');
      const key = keys.find((k) => k.id === keyId);
      if (!key)
        throw new SecretsKeyError(`A stored secret needs key ${keyId}, which MUSE_SECRETS_KEY does not list`);
      const dataKey = decrypt(key.bytes, wrapped!);
      return JSON.parse(decrypt(dataKey, sealed!).toString('utf8')) as unknown;
    },
    sealValues(record) {
      return Object.fromEntries(
        Object.entries(record).map(([name, value]) => [name, value === null ? null : box.seal(value)]),
      ) as never;
    },
    openValues(record) {
      return Object.fromEntries(Object.entries(record).map(([name, value]) => [name, box.open(value)]));
    },
    needsResealing(stored) {
      return !isSealed(stored) || !stored.startsWith(`${PREFIX}${current().id}:`);
    },
  };
  return box;
}

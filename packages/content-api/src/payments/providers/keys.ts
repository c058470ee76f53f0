import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { NotImplementedError } from '@muse/core';

/**
 * Keys as merchants paste them: PEM, or the bare base64 the providers' consoles show
 * (PKCS#8 or PKCS#1 private keys, SPKI or PKCS#1 public keys). A key that does not parse is a
 * configuration error (501), found when the provider is set up for a call, not mid-call.
 */
export function privateKeyOf(text: string, name: string): KeyObject {
  return parse(name, () =>
    text.includes('-----BEGIN')
      ? createPrivateKey(text)
      : firstOf(
          () => createPrivateKey({ key: der(text), format: 'der', type: 'pkcs8' }),
          () => createPrivateKey({ key: der(text), format: 'der', type: 'pkcs1' }),
        ),
  );
}

export function publicKeyOf(text: string, name: string): KeyObject {
  return parse(name, () =>
    text.includes('-----BEGIN')
      ? createPublicKey(text)
      : firstOf(
          () => createPublicKey({ key: der(text), format: 'der', type: 'spki' }),
          () => createPublicKey({ key: der(text), format: 'der', type: 'pkcs1' }),
        ),
  );
}

/** A setting the provider cannot work without: 501 names it. */
export function requiredSetting(value: string | undefined, provider: string, name: string): string {
  if (!value) throw new NotImplementedError(`payment-api has no ${name} for ${provider}`);
  return value;
}

const der = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'base64');

function firstOf(...attempts: (() => KeyObject)[]): KeyObject {
  let last: unknown;
  for (const attempt of attempts) {
    try {
      return attempt();
    } catch (error) {
      last = error;
    }
  }
  throw last;
}

function parse(name: string, read: () => KeyObject): KeyObject {
  try {
    return read();
  } catch {
    throw new NotImplementedError(`payment-api's ${name} is not a key that can be read (PEM or base64 DER)`);
  }
}

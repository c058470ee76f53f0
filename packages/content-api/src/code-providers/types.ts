import { OutboundError, type Logger, type OutboundFetch } from '@muse/core';
import type { CodeType } from '../login/codes.ts';

export interface CodeMessage {
  /** 11-digit mainland number, without country code. */
  phone: string;
  code: string;
  codeType: CodeType;
}

/** One way of delivering a code; throws when the provider did not accept it. */
export interface CodeSender {
  send(message: CodeMessage): Promise<void>;
}

export type JsonSchema = Record<string, unknown>;

/** A kind of provider: what it can deliver, its configuration, its write-only secrets, its adapter. */
export interface ProviderKind<C = Record<string, unknown>, S = Record<string, unknown>> {
  codeTypes: readonly CodeType[];
  /** Refused when NODE_ENV is production (e.g. it writes codes where operators can read them). */
  developmentOnly?: boolean;
  /** JSON Schema of the non-secret settings (defaults filled in by ajv). */
  configSchema: JsonSchema;
  /** JSON Schema of the secrets; they are stored but never returned. */
  secretsSchema: JsonSchema;
  create(settings: { config: C; secrets: S; logger: Logger; fetch: OutboundFetch }): CodeSender;
}

/** A provider refused or failed a delivery; the dispatcher then tries the next one. */
export class DeliveryError extends Error {
  override name = 'DeliveryError';
}

/** Every adapter waits this long for a provider before trying the next. */
export const PROVIDER_TIMEOUT_MS = 10_000;

/**
 * POSTs through the outbound client (address policy, redirects checked) and returns the parsed
 * JSON answer; a refused address, a non-2xx status or an unparsable body is a DeliveryError.
 */
export async function postJson(
  fetch: OutboundFetch,
  url: string,
  init: { headers: Record<string, string>; body: string },
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      ...init,
      signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
    });
  } catch (error) {
    const reason =
      error instanceof OutboundError ? `${error.message} (${error.detail})` : (error as Error).message;
    throw new DeliveryError(`${url} unreachable: ${reason}`);
  }
  const text = await response.text();
  if (!response.ok) throw new DeliveryError(`${url} answered ${response.status}: ${text.slice(0, 200)}`);
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw new DeliveryError(`${url} answered a body that is not JSON`);
  }
}

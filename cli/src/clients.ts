import { decodeJwt } from 'jose';
import {
  createChatClient,
  createContentClient,
  type ChatClient,
  type ContentClient,
  type ContentClientOptions,
} from '@muse/sdk';
import { CliError, ExitCode, notLoggedIn, unknownProfile } from './errors.ts';
import { DEFAULT_PROFILE } from './config/store.ts';
import type { ResolvedProfile } from './config/profiles.ts';

/** What a client is built from: the profile in use and the clock (the factory hands itself in). */
export interface ClientSource {
  profile(): ResolvedProfile;
  now(): Date;
}

/** When a bearer token expires (its `exp`), or undefined when it carries no readable one. */
export function tokenExpiry(token: string): Date | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? new Date(exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** The SDK's client options shared by both APIs: the CLI retries less than a server would, to fail fast. */
const CALL_DEFAULTS = { maxRetries: 1, maxRetryAfter: 5_000, timeout: 30_000 } as const;

/** A content-service client without credentials (login). */
export function anonymousContentClient(
  f: ClientSource,
  baseUrl = f.profile().profile.content_url,
): ContentClient {
  return createContentClient({ baseUrl, ...CALL_DEFAULTS } satisfies ContentClientOptions);
}

/**
 * The logged-in content client of the profile in use. A missing token, or one whose `exp` has
 * passed, stops here with exit code 3 and the login command, before any request is sent.
 */
export function contentClient(f: ClientSource): ContentClient {
  const { name, profile, stored } = f.profile();
  if (!profile.token) throw stored || name === DEFAULT_PROFILE ? notLoggedIn(name) : unknownProfile(name);
  const expiry = tokenExpiry(profile.token);
  if (expiry && expiry.getTime() <= f.now().getTime()) {
    throw notLoggedIn(name, `the token expired at ${expiry.toISOString()}`);
  }
  return createContentClient({ baseUrl: profile.content_url, token: profile.token, ...CALL_DEFAULTS });
}

/** The messaging client of the profile in use (email + API key from `muse chat login`). */
export function chatClient(f: ClientSource): ChatClient {
  const { name, profile, stored } = f.profile();
  if (!stored && name !== DEFAULT_PROFILE) throw unknownProfile(name);
  if (!profile.chat_email || !profile.chat_api_key) {
    throw new CliError(`no messaging API key stored (profile "${name}")`, {
      exitCode: ExitCode.notLoggedIn,
      code: 'not_logged_in',
      hint: `run: muse chat login${name === 'default' ? '' : ` --profile ${name}`}`,
    });
  }
  return createChatClient({
    baseUrl: profile.chat_url,
    email: profile.chat_email,
    apiKey: profile.chat_api_key,
    ...CALL_DEFAULTS,
  });
}

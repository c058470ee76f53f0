import { decodeJwt } from 'jose';
import {
  ApiError,
  ConnectionError,
  GenerationFailedError,
  createChatClient,
  createContentClient,
  type ChatClient,
  type ContentClient,
  type ContentClientOptions,
  ZulipError,
} from '@muse/sdk';
import { CliError, ExitCode, notLoggedIn } from './errors.ts';
import type { Factory } from './factory.ts';
import type { ErrorMapper } from './report.ts';

/** Seconds of a bearer token's remaining life, or undefined when it carries no readable `exp`. */
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
export function anonymousContentClient(f: Factory, baseUrl = f.profile().profile.content_url): ContentClient {
  return createContentClient({ baseUrl, ...CALL_DEFAULTS } satisfies ContentClientOptions);
}

/**
 * The logged-in content client of the profile in use. A missing token, or one whose `exp` has
 * passed, stops here with exit code 3 and the login command, before any request is sent.
 */
export function contentClient(f: Factory): ContentClient {
  const { name, profile } = f.profile();
  if (!profile.token) throw notLoggedIn(name);
  const expiry = tokenExpiry(profile.token);
  if (expiry && expiry.getTime() <= f.now().getTime()) {
    throw notLoggedIn(name, `the token expired at ${expiry.toISOString()}`);
  }
  return createContentClient({ baseUrl: profile.content_url, token: profile.token, ...CALL_DEFAULTS });
}

/** The messaging client of the profile in use (email + API key from `muse chat login`). */
export function chatClient(f: Factory): ChatClient {
  const { name, profile } = f.profile();
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

const EXIT_BY_STATUS: Record<number, (typeof ExitCode)[keyof typeof ExitCode]> = {
  401: ExitCode.notLoggedIn,
  402: ExitCode.insufficientBalance,
  404: ExitCode.notFound,
  429: ExitCode.rateLimited,
};

/** What to do next, per answer of the APIs. */
function hintFor(error: ApiError, profile: string): string | undefined {
  const flag = profile === 'default' ? '' : ` --profile ${profile}`;
  if (error.status === 401)
    return `run: muse ${error instanceof ZulipError ? 'chat login' : 'auth login'}${flag}`;
  if (error.status === 402)
    return 'see your balance with muse me; an administrator adds credits with muse users credit';
  if (error.status === 403)
    return 'this needs an administrator account, or the account is banned (muse auth status)';
  if (error.status === 429) {
    const seconds = Number(error.headers.get('retry-after'));
    return Number.isFinite(seconds) && seconds > 0 ? `try again in ${seconds} s` : 'try again later';
  }
  return undefined;
}

/** The validation details of a 422 (`[{path, message}]`), folded into the one line. */
function detailText(error: ApiError): string {
  const details = (error as ApiError & { details?: unknown }).details;
  if (!Array.isArray(details)) return '';
  const parts = details
    .map((detail: { path?: string; message?: string; instancePath?: string }) =>
      [detail.path ?? detail.instancePath, detail.message].filter(Boolean).join(' '),
    )
    .filter(Boolean);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

/** The SDK's errors as the documented exit codes, with the message the server gave. */
export function apiErrorMappers(f: Factory): ErrorMapper[] {
  const profileName = () => {
    try {
      return f.profile().name;
    } catch {
      return 'default';
    }
  };
  return [
    (error) => {
      if (!(error instanceof ApiError)) return undefined;
      const hint = hintFor(error, profileName());
      return new CliError(`${error.message}${detailText(error)}`, {
        exitCode: EXIT_BY_STATUS[error.status] ?? ExitCode.error,
        code: error.code,
        status: error.status,
        ...(error.requestId ? { requestId: error.requestId } : {}),
        ...(hint ? { hint } : {}),
      });
    },
    (error) => {
      if (!(error instanceof ConnectionError)) return undefined;
      return new CliError(`cannot reach the server: ${error.message}`, {
        code: 'unreachable',
        hint: 'is it running? check the addresses with muse auth status, change them with muse auth login --content-url/--chat-url',
      });
    },
    (error) => {
      if (!(error instanceof GenerationFailedError)) return undefined;
      return new CliError(
        `generation failed: ${error.errorMessage || 'no reason given'} (file ${error.fileId})`,
        {
          code: 'generation_failed',
          hint: 'the credits were refunded; try again or pick another generator',
        },
      );
    },
  ];
}

import { ApiError, ConnectionError, GenerationFailedError, ZulipError } from '@muse/sdk';
import { CliError, ExitCode, type ExitCodeValue } from './errors.ts';
import type { Factory } from './factory.ts';
import type { ErrorMapper } from './report.ts';

const EXIT_BY_STATUS: Record<number, ExitCodeValue> = {
  401: ExitCode.notLoggedIn,
  402: ExitCode.insufficientBalance,
  404: ExitCode.notFound,
  429: ExitCode.rateLimited,
  529: ExitCode.rateLimited,
};

/** What to do next, per answer of the APIs. */
function hintFor(error: ApiError, profile: string): string | undefined {
  const flag = profile === 'default' ? '' : ` --profile ${profile}`;
  if (error.status === 401)
    return `run: muse ${error instanceof ZulipError ? 'chat login' : 'auth login'}${flag}`;
  if (error.status === 402)
    return 'see your balance with muse me; buy credits with muse credits buy (muse bundles list shows what is for sale)';
  if (error.status === 403)
    return 'this needs an administrator account, or the account is banned (muse auth status)';
  if (error.status === 429) return retryHint(error);
  if (error.status === 504)
    return 'the upstream service timed out; the credits were refunded: submit again, or pick another generator (muse generators list)';
  if (error.status === 529)
    return `the upstream service is rate limiting; nothing was charged (or it was refunded): ${retryHint(error)}, or pick another generator`;
  return undefined;
}

function retryHint(error: ApiError): string {
  const seconds = Number(error.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? `try again in ${seconds} s` : 'try again later';
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

/**
 * The documented, stable exit codes of `muse`. Scripts branch on them, so a value never changes
 * meaning; a new condition gets a new number.
 */
export const ExitCode = {
  ok: 0,
  error: 1,
  usage: 2,
  notLoggedIn: 3,
  notFound: 4,
  insufficientBalance: 5,
  rateLimited: 6,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * An error meant for the person at the terminal: one line saying what went wrong, and a hint
 * saying what to do next. Everything thrown by a command ends up as one of these.
 */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  /** A stable machine-readable code (the API's `code` when the server answered). */
  readonly code: string;
  readonly hint: string | undefined;
  /** The HTTP status when a server answered. */
  readonly status: number | undefined;
  /** The request's X-Request-Id, to find it in the server's logs. */
  readonly requestId: string | undefined;

  constructor(
    message: string,
    options: {
      exitCode?: ExitCodeValue;
      code?: string;
      hint?: string;
      status?: number;
      requestId?: string;
    } = {},
  ) {
    super(message);
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? ExitCode.error;
    this.code = options.code ?? 'error';
    this.hint = options.hint;
    this.status = options.status;
    this.requestId = options.requestId;
  }
}

export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, { exitCode: ExitCode.usage, code: 'usage', ...(hint ? { hint } : {}) });
}

/** A profile named (`--profile`, `MUSE_PROFILE`, `profile use`) that the configuration file does not hold. */
export function unknownProfile(profile: string): CliError {
  return new CliError(`no profile "${profile}"`, {
    exitCode: ExitCode.notFound,
    code: 'not_found',
    hint: `create it with: muse auth login --profile ${profile}`,
  });
}

export function notLoggedIn(profile: string, why = 'not logged in'): CliError {
  return new CliError(`${why} (profile "${profile}")`, {
    exitCode: ExitCode.notLoggedIn,
    code: 'not_logged_in',
    hint: `run: muse auth login${profile === 'default' ? '' : ` --profile ${profile}`}`,
  });
}

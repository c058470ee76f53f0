import { Command, Option } from 'commander';
import { text } from 'node:stream/consumers';
import { pathsApiV1AuthVerificationCodeGetParametersQueryCode_typeValues as CODE_TYPES } from '@muse/sdk/generated/content';
import type { Factory } from '../../factory.ts';
import { CliError, usageError } from '../../errors.ts';
import { DEFAULT_CHAT_URL, DEFAULT_CONTENT_URL } from '../../config/profiles.ts';
import { tokenExpiry } from '../../clients.ts';

export interface LoginOptions {
  phone?: string;
  codeType: (typeof CODE_TYPES)[number];
  /** Read a token from stdin instead of the phone flow. */
  withToken?: boolean;
  contentUrl?: string;
  chatUrl?: string;
}

/** 138****8000: enough to recognise the number in a terminal log, not to read it. */
const masked = (phone: string) => `${phone.slice(0, 3)}****${phone.slice(-4)}`;

/**
 * Logs the profile in: asks for the phone (unless given), has the code sent, asks for it, and
 * stores the token with the profile's addresses. `--with-token` skips the phone flow for a token
 * made elsewhere (CI). The token is checked against the server before it is stored.
 */
export async function run(options: LoginOptions, f: Factory): Promise<void> {
  const { name, profile } = f.profile();
  const contentUrl = options.contentUrl ?? f.config.read().profiles[name]?.content_url ?? profile.content_url;
  const chatUrl = options.chatUrl ?? f.config.read().profiles[name]?.chat_url ?? profile.chat_url;
  const client = f.anonymousContent(contentUrl);

  let token: string;
  if (options.withToken) {
    token = (await text(f.io.stdin)).trim();
    if (!token)
      throw usageError('no token on standard input', 'pipe it in: muse auth login --with-token < token.txt');
  } else {
    const phone = options.phone ?? (await f.prompter.input('Phone number: '));
    if (!phone) throw usageError('a phone number is needed', 'pass --phone or type it at the prompt');
    await client.auth.requestCode(phone, { codeType: options.codeType });
    f.printer().notice(
      `A ${options.codeType === 'voice' ? 'voice call' : 'text message'} with a code is on its way to ${masked(phone)}.`,
    );
    const code = await f.prompter.input('Code: ');
    if (!code) throw usageError('no code given', 'run muse auth login again and type the code you received');
    token = await client.auth.login(phone, code, { source: 'cli' });
  }

  client.setToken(token);
  const me = await client.GET('/api/v1/users/me').then((answer) => answer.data);
  f.config.update((file) => {
    const stored = file.profiles[name];
    file.profiles[name] = { ...stored, content_url: contentUrl, chat_url: chatUrl, token };
    if (!file.profiles[file.current_profile]) file.current_profile = name;
  });
  const expiry = tokenExpiry(token);
  f.printer().success(
    `Logged in to ${contentUrl} as ${me.phone}${me.is_admin ? ' (administrator)' : ''} on profile "${name}"` +
      (expiry ? `, until ${expiry.toISOString()}` : ''),
  );
}

export function loginCommand(f: Factory): Command {
  return new Command('login')
    .description('Log in with a phone number and a one-time code (or --with-token)')
    .option('--phone <number>', '11-digit mobile number (asked when missing)')
    .addOption(
      new Option('--code-type <type>', 'how the code is delivered').choices(CODE_TYPES).default('sms'),
    )
    .option('--with-token', 'read a bearer token from standard input instead')
    .option('--content-url <url>', `content service address (default ${DEFAULT_CONTENT_URL})`, url)
    .option('--chat-url <url>', `messaging API address (default ${DEFAULT_CHAT_URL})`, url)
    .action((options: LoginOptions) => run(options, f));
}

function url(value: string): string {
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new CliError(`"${value}" is not a URL`, {
      exitCode: 2,
      code: 'usage',
      hint: 'e.g. http://127.0.0.1:8080',
    });
  }
}

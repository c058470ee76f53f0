import { Command } from 'commander';
import { text } from 'node:stream/consumers';
import { createChatClient } from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';

export interface LoginOptions {
  email?: string;
  password?: boolean;
  apiKey?: string;
  chatUrl?: string;
}

/**
 * Stores a messaging API key with the profile: exchanged for the email and password
 * (`fetch_api_key`; the password is asked without echo, or read from stdin), or given with
 * `--api-key KEY` / `--api-key -` (stdin). The key is tried once before it is stored.
 */
export async function run(options: LoginOptions, f: Factory): Promise<void> {
  const { name, profile } = f.profile();
  const baseUrl = options.chatUrl ?? profile.chat_url;
  const email = options.email ?? (await f.prompter.input('Email: '));
  if (!email) throw usageError('an email is needed', 'pass --email');

  let apiKey: string;
  if (options.apiKey !== undefined) {
    apiKey = options.apiKey === '-' ? (await text(f.io.stdin)).trim() : options.apiKey;
  } else {
    const password = await f.prompter.secret('Password: ');
    const anonymous = createChatClient({ baseUrl, email, apiKey: '', maxRetries: 0 });
    const { data } = await anonymous.POST('/api/v1/fetch_api_key', { body: { username: email, password } });
    apiKey = data.api_key;
  }
  if (!apiKey) throw usageError('no API key given');

  const client = createChatClient({ baseUrl, email, apiKey, maxRetries: 0 });
  const { data: me } = await client.GET('/api/v1/users/me');
  f.config.update((file) => {
    const stored = file.profiles[name] ?? { content_url: profile.content_url, chat_url: baseUrl };
    file.profiles[name] = { ...stored, chat_url: baseUrl, chat_email: email, chat_api_key: apiKey };
    if (!file.profiles[file.current_profile]) file.current_profile = name;
  });
  f.printer().success(`Logged in to ${baseUrl} as ${me.full_name} <${email}> on profile "${name}"`);
}

export function loginCommand(f: Factory): Command {
  return new Command('login')
    .description('Store a messaging API key: from your email and password, or given with --api-key')
    .option('--email <email>', 'your email in the organization')
    .option('--api-key <key|->', 'an API key you already have (- reads it from stdin)')
    .option('--chat-url <url>', "the messaging API's address (default: the profile's)")
    .action((options: LoginOptions) => run(options, f));
}

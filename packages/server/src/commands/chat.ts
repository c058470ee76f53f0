import type { Command } from 'commander';
import { createDatabase, createLogger, type Config } from '@muse/core';
import { requireSetting } from '../runtime.ts';

// Registered on every start of muse-server: the messaging API's package is imported when a
// command runs, so that other processes (the content API above all) do not hold it.
const chatApi = () => import('@muse/chat-api');

async function withDatabase<T>(
  config: Config,
  run: (db: ReturnType<typeof createDatabase>) => Promise<T>,
): Promise<T> {
  const db = createDatabase(requireSetting(config, 'DATABASE_URL'), createLogger(config, 'chat-admin'), {
    poolMax: 2,
  });
  try {
    return await run(db);
  } finally {
    await db.close();
  }
}

export interface CreateOrganizationOptions {
  subdomain: string;
  name: string;
  description?: string;
  videoChatProvider: string;
}

export async function runCreateOrganization(
  config: Config,
  options: CreateOrganizationOptions,
): Promise<void> {
  const { VIDEO_CHAT_PROVIDER, createOrganization } = await chatApi();
  const { videoChatProvider: providerName, ...rest } = options;
  const videoChatProvider = VIDEO_CHAT_PROVIDER[providerName as keyof typeof VIDEO_CHAT_PROVIDER];
  if (videoChatProvider === undefined)
    throw new Error(
      `Unknown video-call provider '${providerName}': one of ${Object.keys(VIDEO_CHAT_PROVIDER).join(', ')}`,
    );
  const realm = await withDatabase(config, (db) => createOrganization(db, { ...rest, videoChatProvider }));
  console.log(JSON.stringify({ realm_id: realm.id, subdomain: realm.string_id, name: realm.name }));
}

export interface CreateUserOptions {
  organization: string;
  email: string;
  fullName: string;
  password?: string;
  canCreateUsers?: boolean;
  role: string;
}

/** Prints the new user's id and API key as JSON, so scripts can bootstrap an owner. */
export async function runCreateUser(config: Config, options: CreateUserOptions): Promise<void> {
  const { ROLE_NAMES, createChatUser, welcomeChatUser } = await chatApi();
  const role = ROLE_NAMES[options.role];
  if (role === undefined)
    throw new Error(`Unknown role '${options.role}': one of ${Object.keys(ROLE_NAMES).join(', ')}`);
  const user = await withDatabase(config, async (db) => {
    const created = await createChatUser(db, {
      subdomain: options.organization,
      email: options.email,
      fullName: options.fullName,
      role,
      ...(options.password ? { password: options.password } : {}),
      ...(options.canCreateUsers ? { canCreateUsers: true } : {}),
    });
    await welcomeChatUser(db, config, options.organization, created);
    return created;
  });
  console.log(
    JSON.stringify({ user_id: user.id, email: user.delivery_email, role: user.role, api_key: user.api_key }),
  );
}

/** `muse-server chat <create-organization|create-user>`. */
export function registerChatCommands(
  program: Command,
  withConfig: <T>(run: (config: Config, options: T) => Promise<void>) => (options: T) => Promise<void>,
): void {
  const chat = program.command('chat').description('administer the messaging API');
  chat
    .command('create-organization')
    .description('create an organization (realm)')
    .requiredOption('--name <name>', 'organization name')
    .option('--subdomain <subdomain>', "subdomain; '' for the root domain", '')
    .option('--description <text>', 'description')
    .option('--video-chat-provider <name>', 'none, jitsi, zoom or bigbluebutton', 'jitsi')
    .action(withConfig(runCreateOrganization));
  chat
    .command('create-user')
    .description('create a user and print its API key')
    .requiredOption('--email <email>', 'email address')
    .requiredOption('--full-name <name>', 'full name')
    .option('--organization <subdomain>', "the organization's subdomain", '')
    .option('--password <password>', 'password for POST /fetch_api_key')
    .option('--role <role>', 'owner, administrator, moderator, member or guest', 'member')
    .option('--can-create-users', 'may create users over the API (POST /users; administrators only)')
    .action(withConfig(runCreateUser));
}

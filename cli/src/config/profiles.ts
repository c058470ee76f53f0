import { DEFAULT_PROFILE, type ConfigFile, type Profile } from './store.ts';

export const DEFAULT_CONTENT_URL = 'http://127.0.0.1:8080';
export const DEFAULT_CHAT_URL = 'http://127.0.0.1:8081';

export interface ResolvedProfile {
  name: string;
  /** The stored profile with the environment's overrides applied and defaults filled in. */
  profile: Profile & { content_url: string; chat_url: string };
  /** Where the token came from, for `auth status`. */
  tokenSource: 'MUSE_TOKEN' | 'config' | 'none';
  /** Whether the configuration file holds this profile (logins create it). */
  stored: boolean;
}

/**
 * Which profile a command uses and with what: `--profile` beats `MUSE_PROFILE` beats the
 * file's current profile; `MUSE_TOKEN`, `MUSE_CONTENT_URL` and `MUSE_CHAT_URL` override the
 * stored values without touching the file (for CI jobs).
 */
export function resolveProfile(
  file: ConfigFile,
  env: Record<string, string | undefined>,
  flag: string | undefined,
): ResolvedProfile {
  const name = flag || env.MUSE_PROFILE || file.current_profile || DEFAULT_PROFILE;
  const known = name in file.profiles;
  const stored = file.profiles[name] ?? { content_url: DEFAULT_CONTENT_URL, chat_url: DEFAULT_CHAT_URL };
  const profile = {
    ...stored,
    content_url: env.MUSE_CONTENT_URL || stored.content_url || DEFAULT_CONTENT_URL,
    chat_url: env.MUSE_CHAT_URL || stored.chat_url || DEFAULT_CHAT_URL,
  };
  if (env.MUSE_TOKEN)
    return { name, profile: { ...profile, token: env.MUSE_TOKEN }, tokenSource: 'MUSE_TOKEN', stored: known };
  return { name, profile, tokenSource: profile.token ? 'config' : 'none', stored: known };
}

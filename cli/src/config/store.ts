import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError } from '../errors.ts';

/** One place to talk to: the two API addresses and the credentials used there. */
export interface Profile {
  content_url: string;
  chat_url: string;
  /** Bearer token of the content service. */
  token?: string;
  /** Messaging API credentials (Basic auth: email + API key). */
  chat_email?: string;
  chat_api_key?: string;
}

export interface ConfigFile {
  /** The profile used when neither `--profile` nor `MUSE_PROFILE` names one. */
  current_profile: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';

/** `$XDG_CONFIG_HOME/muse/config.json`, `~/.config/muse/config.json` without XDG. */
export function configPath(env: Record<string, string | undefined>): string {
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'muse', 'config.json');
}

/**
 * The configuration file, which holds tokens and API keys: it is written only by its owner
 * (mode 0600, folder 0700), atomically (a temporary file renamed over it), so a crash mid-write
 * never leaves half a file, and a file found with wider permissions is narrowed on the next write.
 */
export class ConfigStore {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  read(): ConfigFile {
    let text: string;
    try {
      text = fs.readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { current_profile: DEFAULT_PROFILE, profiles: {} };
      throw error;
    }
    try {
      const parsed = JSON.parse(text) as Partial<ConfigFile>;
      return { current_profile: parsed.current_profile ?? DEFAULT_PROFILE, profiles: parsed.profiles ?? {} };
    } catch {
      throw new CliError(`${this.path} is not valid JSON`, {
        code: 'bad_config',
        hint: 'fix or delete the file, then run muse auth login',
      });
    }
  }

  write(file: ConfigFile): void {
    const dir = path.dirname(this.path);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    fs.chmodSync(temporary, 0o600);
    fs.renameSync(temporary, this.path);
  }

  /** Reads, lets `change` edit, writes back. */
  update(change: (file: ConfigFile) => void): ConfigFile {
    const file = this.read();
    change(file);
    this.write(file);
    return file;
  }
}

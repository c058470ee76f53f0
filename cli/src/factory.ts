import { setTimeout as delay } from 'node:timers/promises';
import { ConfigStore, configPath } from './config/store.ts';
import { resolveProfile, type ResolvedProfile } from './config/profiles.ts';
import { createPrompter, type Prompter } from './io/prompter.ts';
import { Printer, type OutputFormat } from './io/output.ts';
import { colorEnabled, processStreams, type IOStreams } from './io/streams.ts';
import { createProgress, type Progress } from './io/progress.ts';
import { anonymousContentClient, chatClient, contentClient } from './clients.ts';
import type { ChatClient, ContentClient } from '@muse/sdk';

export type Env = Record<string, string | undefined>;

/** The flags every command accepts (`muse --help`). */
export interface GlobalOptions {
  profile?: string;
  output: OutputFormat;
  /** false with `--no-color`. */
  color?: boolean;
}

/**
 * Everything a command needs from the outside world, handed in so a command runs the same in a
 * terminal and in a test: streams, questions, the configuration file, the clock, and the clients
 * of both APIs for the selected profile.
 */
export interface Factory {
  io: IOStreams;
  env: Env;
  prompter: Prompter;
  config: ConfigStore;
  now(): Date;
  sleep(ms: number): Promise<void>;
  /** Set once the global flags are parsed, before any command runs. */
  globals: GlobalOptions;
  printer(): Printer;
  progress(): Progress;
  /** The profile in use, from `--profile`, `MUSE_PROFILE` or the file. */
  profile(): ResolvedProfile;
  /** The content service, logged in as the profile's account (exit 3 when it is not). */
  content(): ContentClient;
  /** The content service without credentials, at `url` or the profile's address. */
  anonymousContent(url?: string): ContentClient;
  /** The messaging API with the profile's API key (exit 3 when there is none). */
  chat(): ChatClient;
  /** Aborted when the user presses Ctrl-C: long waits and streams end cleanly on it. */
  interrupt: AbortSignal;
}

export interface FactoryOptions {
  io?: IOStreams;
  env?: Env;
  prompter?: Prompter;
  now?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  interrupt?: AbortSignal;
}

export function createFactory(options: FactoryOptions = {}): Factory {
  const io = options.io ?? processStreams();
  const env = options.env ?? process.env;
  const config = new ConfigStore(configPath(env));
  const now = options.now ?? (() => new Date());
  const factory: Factory = {
    io,
    env,
    prompter: options.prompter ?? createPrompter(io),
    config,
    now,
    sleep: options.sleep ?? ((ms) => delay(ms)),
    globals: { output: 'table' },
    printer: () =>
      new Printer(io, factory.globals.output, colorEnabled(io.stdoutIsTTY, env, factory.globals.color)),
    progress: () => createProgress(io, now),
    profile: () => resolveProfile(config.read(), env, factory.globals.profile),
    content: () => contentClient(factory),
    anonymousContent: (url) => anonymousContentClient(factory, url),
    chat: () => chatClient(factory),
    interrupt: options.interrupt ?? new AbortController().signal,
  };
  return factory;
}

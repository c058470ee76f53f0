import { Command } from 'commander';
import { text } from 'node:stream/consumers';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { collect } from '../shared/pairs.ts';
import { principals } from './calls.ts';

export interface SendOptions {
  channel?: string;
  topic?: string;
  to?: string[];
  message: string;
}

/** A channel message (`--channel`, `--topic`) or a direct message (`--to`, repeatable). */
export async function run(options: SendOptions, f: Factory): Promise<void> {
  if (Boolean(options.channel) === Boolean(options.to?.length)) {
    throw usageError('say where: --channel NAME --topic TOPIC, or --to USER (not both)');
  }
  if (options.channel && !options.topic) throw usageError('a channel message needs --topic');
  const content = options.message === '-' ? (await text(f.io.stdin)).trimEnd() : options.message;
  if (!content) throw usageError('the message is empty');
  // `to` is a channel name, or the recipients as a JSON list (Zulip's encoding of a list parameter).
  const body = options.channel
    ? { type: 'stream', to: options.channel, topic: options.topic!, content }
    : { type: 'direct', to: JSON.stringify(principals(options.to!)), content };
  const { data } = await f.chat().POST('/api/v1/messages', { body });
  if (f.printer().format !== 'table') return f.printer().data({ id: data.id });
  f.printer().success(`Sent message ${data.id}`);
}

export function sendCommand(f: Factory): Command {
  return new Command('send')
    .description('Send a message: --channel NAME --topic TOPIC, or --to USER')
    .requiredOption('-m, --message <text|->', 'the message (- reads it from stdin)')
    .option('--channel <name>', 'channel to post to')
    .option('--topic <topic>', 'topic in the channel')
    .option('--to <id|email>', 'direct message recipient (repeatable)', collect)
    .action((options: SendOptions) => run(options, f));
}

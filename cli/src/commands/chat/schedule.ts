import { Command } from 'commander';
import { text } from 'node:stream/consumers';
import type { Factory } from '../../factory.ts';
import { usageError } from '../../errors.ts';
import { collect } from '../shared/pairs.ts';
import { userId } from './calls.ts';

export interface ScheduleOptions {
  channel?: string;
  topic?: string;
  to?: string[];
  at: string;
  message: string;
}

/** A message the server sends at `--at`: to a channel you are subscribed to, or to users by id. */
export async function run(options: ScheduleOptions, f: Factory): Promise<void> {
  if (Boolean(options.channel) === Boolean(options.to?.length)) {
    throw usageError('say where: --channel NAME --topic TOPIC, or --to USER_ID (not both)');
  }
  if (options.channel && !options.topic) throw usageError('a channel message needs --topic');
  const at = deliveryTime(options.at, f.now());
  const content = options.message === '-' ? (await text(f.io.stdin)).trimEnd() : options.message;
  if (!content) throw usageError('the message is empty');
  const scheduled_delivery_timestamp = Math.floor(at.getTime() / 1000);
  const body = options.channel
    ? {
        type: 'stream' as const,
        to: await channelId(f, options.channel),
        topic: options.topic!,
        content,
        scheduled_delivery_timestamp,
      }
    : { type: 'direct' as const, to: options.to!.map(userId), content, scheduled_delivery_timestamp };
  const { data } = await f.chat().POST('/api/v1/scheduled_messages', { body });
  if (f.printer().format !== 'table')
    return f.printer().data({ id: data.scheduled_message_id, at: at.toISOString() });
  f.printer().success(`Scheduled message ${data.scheduled_message_id} for ${at.toISOString()}`);
}

/** `--at`: an ISO 8601 time, or `+10m` / `+2h` / `+1d` from now; it must lie in the future. */
export function deliveryTime(value: string, now: Date): Date {
  const relative = /^\+(\d+)([smhd])$/.exec(value);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 } as const;
  const at = relative
    ? new Date(now.getTime() + Number(relative[1]) * unit[relative[2] as keyof typeof unit] * 1000)
    : new Date(value);
  if (Number.isNaN(at.getTime()))
    throw usageError(
      `--at "${value}" is not a time`,
      'use an ISO time (2026-12-01T09:00:00Z) or +10m, +2h, +1d',
    );
  if (at <= now) throw usageError(`--at ${at.toISOString()} is not in the future`);
  return at;
}

/** The id of a channel you are subscribed to, by name (the API takes channel ids here). */
async function channelId(f: Factory, name: string): Promise<number> {
  const { data } = await f.chat().GET('/api/v1/users/me/subscriptions');
  const channel = data.subscriptions.find((s) => s.name.toLowerCase() === name.toLowerCase());
  if (!channel)
    throw usageError(`you are not subscribed to a channel "${name}"`, 'see muse chat channels list');
  return channel.stream_id;
}

export function scheduleCommand(f: Factory): Command {
  return new Command('schedule')
    .description('Schedule a message: --at TIME with --channel NAME --topic TOPIC, or --to USER_ID')
    .requiredOption('--at <time>', 'when to send: an ISO time, or +10m, +2h, +1d from now')
    .requiredOption('-m, --message <text|->', 'the message (- reads it from stdin)')
    .option('--channel <name>', 'channel to post to (one you are subscribed to)')
    .option('--topic <topic>', 'topic in the channel')
    .option('--to <user id>', 'direct message recipient (repeatable)', collect)
    .action((options: ScheduleOptions) => run(options, f));
}

import type { Sequelize } from '@muse/core';
import type { ChatEvent } from '../lib/events/log.ts';
import { one } from '@muse/core';

/**
 * Events as a queue's client asked for them: `message` events carry the sender's Markdown beside
 * the HTML, and a queue registered without `apply_markdown` gets the Markdown
 * (`content_type: text/x-markdown`), as Zulip sends it; the extra field never leaves the server.
 */
export async function presentQueueEvents(
  db: Sequelize,
  queueId: string,
  events: ChatEvent[],
): Promise<ChatEvent[]> {
  if (!events.some((e) => 'raw_content' in e)) return events;
  const queue = await one<{ apply_markdown: boolean }>(
    db,
    'SELECT apply_markdown FROM chat.event_queues WHERE id = :queueId',
    { queueId },
  );
  const html = queue?.apply_markdown ?? true;
  return events.map((event) => {
    if (!('raw_content' in event)) return event;
    const { raw_content: raw, ...rest } = event;
    if (html || rest.type !== 'message') return rest as ChatEvent;
    const message = {
      ...(rest.message as Record<string, unknown>),
      content: raw,
      content_type: 'text/x-markdown',
    };
    return { ...rest, message } as ChatEvent;
  });
}

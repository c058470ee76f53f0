/*
 * A narrowed event queue's filter (Zulip's narrow on POST /register): the queue's narrow, resolved
 * once at registration by lib/narrow.ts, tested against each `message` event when the queue is
 * read (lib/events/reader.ts). Kept apart from lib/narrow.ts so the event log needs nothing else.
 */

/** Zulip's topic prefix of a resolved topic. */
export const RESOLVED_PREFIX = '✔ ';
/** The flags `is:mentioned` matches. */
export const MENTION_FLAGS = [
  'mentioned',
  'wildcard_mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
];

/** A queue's narrow with its names resolved at registration: what each message event is tested against. */
export type EventNarrowTerm =
  | { op: 'channel'; id: number; negated: boolean }
  | { op: 'topic'; name: string; negated: boolean }
  | { op: 'sender'; id: number; negated: boolean }
  | { op: 'dm'; ids: number[]; negated: boolean }
  | { op: 'dm-including'; id: number; negated: boolean }
  | { op: 'is'; what: string; negated: boolean; words?: string[] };

export interface MessageEventBody {
  message: {
    stream_id?: number;
    subject: string;
    sender_id: number;
    display_recipient: string | { id: number }[];
    content: string;
  };
  flags: string[];
}

/** Whether a `message` event matches a queue's resolved narrow. */
export function matchesEventNarrow(
  narrow: EventNarrowTerm[],
  self: number,
  event: MessageEventBody,
): boolean {
  const { message, flags } = event;
  const members = Array.isArray(message.display_recipient) ? message.display_recipient.map((u) => u.id) : [];
  const isDm = message.stream_id === undefined;
  const test = (term: EventNarrowTerm): boolean => {
    switch (term.op) {
      case 'channel':
        return message.stream_id === term.id;
      case 'topic':
        return !isDm && message.subject.toLowerCase() === term.name.toLowerCase();
      case 'sender':
        return message.sender_id === term.id;
      case 'dm':
        return isDm && members.length === term.ids.length && term.ids.every((id) => members.includes(id));
      case 'dm-including':
        return isDm && members.includes(term.id);
      case 'is':
        if (term.what === 'alerted') {
          const text = message.content.toLowerCase();
          return message.sender_id !== self && (term.words ?? []).some((w) => text.includes(w));
        }
        return testIs(term.what, isDm, message.subject, flags);
    }
  };
  return narrow.every((term) => test(term) !== term.negated);
}

function testIs(what: string, isDm: boolean, topic: string, flags: string[]): boolean {
  switch (what) {
    case 'dm':
    case 'private':
      return isDm;
    case 'starred':
      return flags.includes('starred');
    case 'mentioned':
      return flags.some((f) => MENTION_FLAGS.includes(f));
    case 'unread':
      return !flags.includes('read');
    case 'resolved':
      return !isDm && topic.startsWith(RESOLVED_PREFIX);
    default:
      return false;
  }
}

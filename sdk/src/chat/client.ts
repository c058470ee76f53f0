import type { paths } from '../generated/chat.ts';
import { zulipError } from '../errors.ts';
import { transportFor, type ClientOptions } from '../client-options.ts';
import { createTypedClient, type TypedClient } from '../typed-client.ts';
import { basicAuthorization, zulipParameters } from './form.ts';
import { eventStream, type ChatEvent, type EventsOptions } from './events.ts';

export type ChatPaths = paths;

export interface ChatClientOptions extends ClientOptions {
  /** The user's (or bot's) email and API key: HTTP Basic auth on every call. */
  email: string;
  apiKey: string;
}

export interface ChatClient extends TypedClient<paths> {
  /**
   * The caller's events: registers a queue, long-polls it (heartbeats are absorbed), registers
   * again when the server forgot the queue (BAD_EVENT_QUEUE_ID), and deletes the queue when the
   * loop ends (break, return, an error, or the signal).
   */
  events(options?: EventsOptions): AsyncGenerator<ChatEvent, void, undefined>;
}

/** A typed client of the Zulip-compatible messaging API; bodies are form-encoded, structured values as JSON. */
export function createChatClient(options: ChatClientOptions): ChatClient {
  const authorization = basicAuthorization(options.email, options.apiKey);
  const api = createTypedClient<paths>({
    baseUrl: options.baseUrl,
    transport: transportFor(options, zulipError, (headers) => {
      if (!headers.has('authorization')) headers.set('Authorization', authorization);
    }),
    ...(options.headers ? { headers: options.headers } : {}),
    // A URLSearchParams body: fetch labels it application/x-www-form-urlencoded itself.
    bodySerializer: (body) => zulipParameters(body as unknown as Record<string, unknown>),
    querySerializer: (query) => zulipParameters(query).toString(),
  });
  return { ...api, events: (eventOptions) => eventStream(api, eventOptions) };
}

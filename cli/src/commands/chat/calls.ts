import type { ChatClient } from '@muse/sdk';
import type { Factory } from '../../factory.ts';

type Untyped = (
  path: string,
  init?: { params?: object; body?: Record<string, unknown> },
) => Promise<{
  data: Record<string, unknown>;
}>;

/**
 * The messaging API's calls with Zulip's form parameters. Its document types most answers as
 * the generic success envelope, so the fields read here are named by each command.
 */
export function chatCalls(client: ChatClient) {
  return {
    get: client.GET as unknown as Untyped,
    post: client.POST as unknown as Untyped,
    patch: client.PATCH as unknown as Untyped,
    delete: client.DELETE as unknown as Untyped,
  };
}

export function chat(f: Factory) {
  return chatCalls(f.chat());
}

/** Zulip's role numbers by name, as `set-role` accepts them. */
export const ROLES = { owner: 100, administrator: 200, moderator: 300, member: 400, guest: 600 } as const;

export function roleName(role: unknown): string {
  return Object.entries(ROLES).find(([, value]) => value === role)?.[0] ?? String(role);
}

/** A user id stays a number; anything else (an email) is sent as it is. */
export function userRef(value: string): string | number {
  return /^\d+$/.test(value) ? Number(value) : value;
}

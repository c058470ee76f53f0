import type { ChatComponents } from '@muse/sdk';
import { usageError } from '../../errors.ts';

/** Zulip's role numbers by name, as `set-role` accepts them. */
export const ROLES = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600,
} as const satisfies Record<string, ChatComponents['schemas']['User']['role']>;

export function roleName(role: unknown): string {
  return Object.entries(ROLES).find(([, value]) => value === role)?.[0] ?? String(role);
}

/** Whether every recipient was given by id (Zulip takes a list of ids or a list of emails, not both). */
function allIds(values: readonly string[]): boolean {
  return values.every((value) => /^\d+$/.test(value));
}

/** A list of users as the API takes it: ids as numbers, or emails. */
export function principals(values: readonly string[]): number[] | string[] {
  return allIds(values) ? values.map(Number) : [...values];
}

/** A user id, checked here so a name is a usage error rather than a server's 400. */
export function userId(value: string): number {
  if (!/^\d+$/.test(value)) throw usageError(`"${value}" is not a user id`, 'see muse chat users list');
  return Number(value);
}

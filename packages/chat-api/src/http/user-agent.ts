/**
 * The sending client's name, as Zulip records it on a message (`client`): the User-Agent's first
 * product token, before its version (`ZulipPython/0.9.1 (Linux)` → `ZulipPython`,
 * `ZulipTerminal/0.7.0` → `ZulipTerminal`); `Unspecified` without one, as in Zulip. Zulip stores
 * at most 30 characters of it.
 */
export function clientName(userAgent: string | undefined): string {
  const name = /^([^/ ]*[^0-9/(]*)/.exec(userAgent ?? '')?.[1]?.trim();
  return name ? name.slice(0, 30) : 'Unspecified';
}

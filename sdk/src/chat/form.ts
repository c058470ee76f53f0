/**
 * Zulip's parameter encoding: each parameter is one form field (or query parameter); strings go
 * as they are, every other value (numbers, booleans, lists, objects) as JSON text.
 */
export function zulipParameters(values: Record<string, unknown> | undefined): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(values ?? {})) {
    if (value === undefined) continue;
    form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return form;
}

/** `Basic base64(email:apiKey)`, UTF-8 safe (btoa alone takes only Latin-1). */
export function basicAuthorization(email: string, apiKey: string): string {
  const bytes = new TextEncoder().encode(`${email}:${apiKey}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

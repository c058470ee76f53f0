/** An 11-digit mainland China mobile number: 1, then 3–9, then nine digits. */
export const MAINLAND_MOBILE = /^1[3-9]\d{9}$/;

export function isMainlandMobile(value: unknown): value is string {
  return typeof value === 'string' && MAINLAND_MOBILE.test(value);
}

/** Shows enough of a number in logs to tell numbers apart, not enough to leak them. */
export function maskPhone(phone: string): string {
  return `${phone.slice(0, 3)}****${phone.slice(-4)}`;
}

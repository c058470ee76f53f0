/** Why an outbound call did not get an answer; the message is short and safe to show a user. */
export type OutboundFailure =
  'forbidden_address' | 'scheme' | 'too_large' | 'timeout' | 'redirects' | 'unreachable';

const MESSAGES: Record<OutboundFailure, string> = {
  forbidden_address: 'The address is not one this server may call',
  scheme: 'Only http and https addresses can be called',
  too_large: 'The answer is larger than allowed',
  timeout: 'No answer in time',
  redirects: 'Too many redirects',
  unreachable: 'The address is unreachable',
};

/**
 * An outbound call failed. `message` names the reason in a sentence fit for users; the full
 * detail (addresses, the underlying error) is in `detail`, for the log only.
 */
export class OutboundError extends Error {
  override name = 'OutboundError';
  readonly reason: OutboundFailure;
  readonly detail: string;

  constructor(reason: OutboundFailure, detail: string) {
    super(MESSAGES[reason]);
    this.reason = reason;
    this.detail = detail;
  }
}

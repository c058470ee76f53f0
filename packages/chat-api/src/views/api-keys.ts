import { forgiveRateLimitHit, hitRateLimit, RateLimitedError, type RateLimit } from '@muse/core';
import { userByAnyEmail, apiEmail, recordFirstLogin } from '../domain/lib/users.ts';
import { checkPassword } from '../domain/lib/credentials.ts';
import { JsonableError, rateLimited, unauthorized } from '../http/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { requestRealm } from '../http/auth.ts';
import type { ChatRuntime } from './context.ts';

const authenticationFailed = () =>
  unauthorized('Your username or password is incorrect', 'AUTHENTICATION_FAILED');

const apiKeyAnswer = {
  required: ['api_key', 'email', 'user_id'],
  properties: {
    api_key: { type: 'string', pattern: '^[A-Za-z0-9]{32}$' },
    email: { type: 'string', description: 'The API email to use with the key.' },
    user_id: { type: 'integer' },
  },
};

/** POST /fetch_api_key and POST /dev_fetch_api_key: the ways a client obtains its API key. */
export const apiKeyEndpoints = [
  endpoint({
    method: 'post',
    path: '/fetch_api_key',
    operationId: 'fetchApiKey',
    summary: "Exchange an email and password for the user's API key",
    description:
      'Every attempt is counted before the password is checked, per account and client address ' +
      '(every spelling of its email shares one count; MUSE_CHAT_AUTH_ATTEMPTS per ' +
      "MUSE_CHAT_AUTH_WINDOW_SECONDS, so another address's wrong guesses never lock the owner out), " +
      'per account over all addresses (ten times that) and per client address over all accounts ' +
      '(MUSE_CHAT_AUTH_ADDRESS_ATTEMPTS); a right password takes its attempt back. Beyond a limit ' +
      'every attempt it covers is refused with 429 until the window ends.',
    public: true,
    params: { username: p.string(), password: p.string() },
    response: apiKeyAnswer,
    errors: [401, 429],
    example: {
      params: { username: 'ada@chat.example.com', password: 'correct-horse-battery-staple' },
      response: { api_key: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv', email: 'user8@chat.example.com', user_id: 8 },
    },
    view: async ({ username, password }, rt, req) => {
      const realm = await requestRealm(rt.db, rt.config, req.headers.host);
      if (!realm) throw authenticationFailed();
      const user = await userByAnyEmail(rt.db, realm, rt.config, username);
      const counted = await countLoginAttempt(rt, realm.id, user?.id, username, req.ip);
      if (!user || user.is_bot || !(await checkPassword(password, user.password_hash))) {
        throw authenticationFailed();
      }
      await Promise.all(counted.map((limit) => forgiveRateLimitHit(rt.db, 'chat', limit)));
      if (realm.deactivated)
        throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
      if (!user.is_active) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
      await recordFirstLogin(rt.db, user);
      return { api_key: user.api_key, email: apiEmail(user, realm, rt.config), user_id: user.id };
    },
  }),
  endpoint({
    method: 'post',
    path: '/dev_fetch_api_key',
    operationId: 'devFetchApiKey',
    summary: 'Development servers only: the API key of any user, by email',
    description:
      'Answers only when MUSE_CHAT_DEV_ENDPOINTS is true and NODE_ENV is not production; otherwise 400.',
    public: true,
    params: { username: p.string() },
    response: apiKeyAnswer,
    errors: [401],
    example: {
      params: { username: 'ada@chat.example.com' },
      response: { api_key: 'gjA04ZYcqXKalvYMA8OeXSfzUOLrtbZv', email: 'user8@chat.example.com', user_id: 8 },
    },
    view: async ({ username }, rt, req) => {
      if (!rt.config.MUSE_CHAT_DEV_ENDPOINTS || rt.config.NODE_ENV === 'production') {
        throw new JsonableError('DevAuthBackend not enabled.');
      }
      const realm = await requestRealm(rt.db, rt.config, req.headers.host);
      const user = realm ? await userByAnyEmail(rt.db, realm, rt.config, username) : undefined;
      if (!realm || !user) throw authenticationFailed();
      if (!user.is_active) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
      return { api_key: user.api_key, email: apiEmail(user, realm, rt.config), user_id: user.id };
    },
  }),
];

/** An account's attempts from all addresses together: a bound on guessing from many addresses. */
const ALL_ADDRESSES_FACTOR = 10;

/**
 * Counts a password attempt before the password is checked, so parallel guesses cannot all pass
 * a check made before any of them was counted. The account is the one the username resolves to
 * (every spelling of it shares one counter); an unknown name counts under its own text. It is
 * counted per client address, so a stranger's guesses use up the stranger's attempts, not the
 * owner's; all addresses together have a wider bound, and one address trying many accounts a
 * limit of its own. A refused attempt counts no further. Returns the counters hit, so a right
 * password can take its attempt back.
 */
async function countLoginAttempt(
  rt: ChatRuntime,
  realmId: number,
  userId: number | undefined,
  username: string,
  address: string | undefined,
): Promise<RateLimit[]> {
  const { MUSE_CHAT_AUTH_ATTEMPTS: perAccount, MUSE_CHAT_AUTH_ADDRESS_ATTEMPTS: perAddress } = rt.config;
  const windowSeconds = rt.config.MUSE_CHAT_AUTH_WINDOW_SECONDS;
  const describe = 'API usage exceeded rate limit';
  const from = address ?? 'unknown';
  const account = userId === undefined ? `name:${realmId}:${username.toLowerCase()}` : `user:${userId}`;
  const limits: RateLimit[] = [
    { bucket: 'fetch_api_key:address', key: from, max: perAddress, windowSeconds, describe },
    {
      bucket: 'fetch_api_key:account@address',
      key: `${account}@${from}`,
      max: perAccount,
      windowSeconds,
      describe,
    },
    {
      bucket: 'fetch_api_key:account',
      key: account,
      max: perAccount * ALL_ADDRESSES_FACTOR,
      windowSeconds,
      describe,
    },
  ];
  try {
    for (const limit of limits) await hitRateLimit(rt.db, 'chat', limit);
  } catch (error) {
    // Zulip's envelope and code for the same refusal.
    if (error instanceof RateLimitedError) throw rateLimited(error.retryAfterSeconds);
    throw error;
  }
  return limits;
}

import { assertNotRateLimited, hitRateLimit } from '../domain/rate-limit.ts';
import { userByAnyEmail, checkPassword, apiEmail } from '../domain/users.ts';
import { JsonableError, unauthorized } from '../http/errors.ts';
import { endpoint } from '../http/endpoint.ts';
import { p } from '../http/params.ts';
import { requestRealm } from '../http/auth.ts';

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
      'Failed attempts are counted per organization and username (MUSE_CHAT_AUTH_ATTEMPTS per ' +
      'MUSE_CHAT_AUTH_WINDOW_SECONDS); beyond that every attempt is refused with 429 until the window ends.',
    public: true,
    params: { username: p.string(), password: p.string() },
    response: apiKeyAnswer,
    errors: [401, 429],
    view: async ({ username, password }, rt, req) => {
      const realm = await requestRealm(rt.db, rt.config, req.headers.host);
      if (!realm) throw authenticationFailed();
      // Failed attempts are counted per organization and username; once over the limit, even
      // the right password waits, so guessing cannot continue in parallel with a real login.
      const key = `fetch_api_key:${realm.id}:${username.toLowerCase()}`;
      const { MUSE_CHAT_AUTH_ATTEMPTS: limit, MUSE_CHAT_AUTH_WINDOW_SECONDS: window } = rt.config;
      await assertNotRateLimited(rt.db, key, limit, window);
      const user = await userByAnyEmail(rt.db, realm, rt.config, username);
      if (!user || user.is_bot || !(await checkPassword(password, user.password_hash))) {
        await hitRateLimit(rt.db, key, limit, window);
        throw authenticationFailed();
      }
      if (realm.deactivated)
        throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
      if (!user.is_active) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
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

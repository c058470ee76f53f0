import type { Router } from 'express';
import { assertNotRateLimited, hitRateLimit } from '../domain/rate-limit.ts';
import { userByAnyEmail, checkPassword, apiEmail } from '../domain/users.ts';
import { JsonableError, unauthorized } from '../http/errors.ts';
import { endpoint, p } from '../http/params.ts';
import { requestRealm } from '../http/auth.ts';
import { anonymous, type ChatRuntime } from './context.ts';

const authenticationFailed = () =>
  unauthorized('Your username or password is incorrect', 'AUTHENTICATION_FAILED');

/** POST /fetch_api_key and POST /dev_fetch_api_key: the ways a client obtains its API key. */
export function apiKeyRoutes(router: Router, runtime: ChatRuntime): void {
  router.post(
    '/fetch_api_key',
    endpoint(
      { username: p.string(), password: p.string() },
      anonymous(runtime),
      async ({ username, password }, rt, req) => {
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
    ),
  );

  router.post(
    '/dev_fetch_api_key',
    endpoint({ username: p.string() }, anonymous(runtime), async ({ username }, rt, req) => {
      if (!rt.config.MUSE_CHAT_DEV_ENDPOINTS || rt.config.NODE_ENV === 'production') {
        throw new JsonableError('DevAuthBackend not enabled.');
      }
      const realm = await requestRealm(rt.db, rt.config, req.headers.host);
      const user = realm ? await userByAnyEmail(rt.db, realm, rt.config, username) : undefined;
      if (!realm || !user) throw authenticationFailed();
      if (!user.is_active) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
      return { api_key: user.api_key, email: apiEmail(user, realm, rt.config), user_id: user.id };
    }),
  );
}

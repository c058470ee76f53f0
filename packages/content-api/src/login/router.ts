import {
  BadRequestError,
  ForbiddenError,
  hitRateLimit,
  pruneRateLimits,
  requestLog,
  type Sequelize,
  transact,
} from '@muse/core';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { readServerSettings, type ServerSettings } from '../server-config/server-config.ts';
import { deliverCode, requireProviders } from '../code-providers/dispatch.ts';
import { enabledProvidersFor } from '../code-providers/store.ts';
import { createCodeHasher } from './code-hasher.ts';
import { consumeCode, storeNewCode, withdrawCode } from './codes.ts';
import { loginAccount } from './registration.ts';

const HOUR = 3600;

/**
 * Phone login: `GET /auth/verification-code` sends a one-time code, `POST /auth/token`
 * exchanges it for a bearer token, registering the number on first login. Shapes are checked
 * by the OpenAPI validator (422) before these handlers run.
 */
export function loginRoutes(context: ContentContext): Routes {
  const routes = new Routes();
  const hasher = createCodeHasher(context.config.MUSE_JWT_SECRET ?? '');
  const { db, logger } = context;

  route(routes, 'get', '/api/v1/auth/verification-code', async (req, res) => {
    const phone = req.query.phone_number;
    const codeType = req.query.code_type ?? 'sms';
    const providers = requireProviders(
      await enabledProvidersFor(db, context.secrets, codeType, context.config.NODE_ENV === 'production'),
      codeType,
    );
    const settings = await readServerSettings(db);
    const { code, codeHash } = await storeNewCode(
      db,
      hasher,
      { phone, codeType, ip: clientIp(req.ip) },
      settings,
    );
    try {
      await deliverCode(providers, { phone, code, codeType }, requestLog(res, logger), context.outbound);
    } catch (error) {
      await withdrawCode(db, phone, codeHash);
      throw error;
    }
    if (Math.random() < 0.01)
      void pruneRateLimits(db, 'content').catch((error: unknown) =>
        requestLog(res, logger).warn({ err: error }, 'prune failed'),
      );
    res.status(204).end();
  });

  route(routes, 'post', '/api/v1/auth/token', async (req, res) => {
    const { phone, verification_code: code, source } = req.body;
    const settings = await readServerSettings(db);
    await limitLoginAttempts(db, phone, clientIp(req.ip), settings);
    const outcome = await transact(db, async (transaction) => {
      const check = await consumeCode(db, transaction, hasher, phone, code, settings.code_max_attempts);
      if (check !== 'accepted') return { check } as const;
      const account = await loginAccount(db, transaction, {
        phone,
        source: source ?? null,
        creditQuota: settings.default_credit_quota,
      });
      return { check, account } as const;
    });
    if (!outcome.account) {
      throw new BadRequestError(
        outcome.check === 'wrong'
          ? 'The verification code is wrong'
          : 'No valid code for this number; it expired or was used',
      );
    }
    if (!outcome.account.isActive) throw new ForbiddenError('This account is disabled');
    if (outcome.account.registered)
      requestLog(res, logger).info({ userId: outcome.account.id, source }, 'account registered');
    res.json({ token: await context.tokens.sign(outcome.account) });
  });

  return routes;
}

/**
 * Login attempts count per number and address together, and per address: someone else's wrong
 * codes never lock the owner out (the code itself is withdrawn after code_max_attempts).
 */
async function limitLoginAttempts(
  db: Sequelize,
  phone: string,
  ip: string,
  settings: ServerSettings,
): Promise<void> {
  await hitRateLimit(db, 'content', {
    bucket: 'login:phone',
    key: `${phone}@${ip}`,
    windowSeconds: HOUR,
    max: settings.login_attempts_per_phone_per_hour,
    describe: 'Too many login attempts for this number',
  });
  await hitRateLimit(db, 'content', {
    bucket: 'login:ip',
    key: ip,
    windowSeconds: HOUR,
    max: settings.login_attempts_per_ip_per_hour,
    describe: 'Too many login attempts from this address',
  });
}

/** The client address behind the trusted proxy; IPv4-mapped IPv6 counts as the IPv4 address. */
function clientIp(ip: string | undefined): string {
  return (ip ?? 'unknown').replace(/^::ffff:/, '');
}

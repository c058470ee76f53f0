import type { RequestHandler } from 'express';
import type { Config, Sequelize } from '@muse/core';
import type { Actor } from '../domain/context.ts';
import { realmBySubdomain, subdomainForHost, type Realm } from '../domain/lib/realms.ts';
import { apiEmail, type User } from '../domain/lib/users.ts';
import { unauthorized } from './errors.ts';
import { one } from '@muse/core';

/** The organization addressed by the Host header, or undefined when none exists there. */
export async function requestRealm(
  db: Sequelize,
  config: Config,
  host: string | undefined,
): Promise<Realm | undefined> {
  return realmBySubdomain(db, subdomainForHost(host, config));
}

/**
 * The organization of the subdomain and its user holding the key, in one round trip (every
 * authenticated request runs it); a key of another organization's user finds no user.
 */
async function realmAndKeyHolder(
  db: Sequelize,
  subdomain: string,
  key: string,
): Promise<{ realm: Realm | undefined; user: User | undefined }> {
  const found = await one<User & { found_realm: Realm & { date_created: string } }>(
    db,
    `SELECT u.*, to_jsonb(r.*) AS found_realm FROM chat.realms r
     LEFT JOIN chat.users u ON u.api_key = :key AND u.realm_id = r.id
     WHERE r.string_id = :subdomain`,
    { subdomain, key },
  );
  if (!found) return { realm: undefined, user: undefined };
  const { found_realm: realm, ...user } = found;
  return {
    realm: { ...realm, date_created: new Date(realm.date_created) },
    user: (user.id as number | null) === null ? undefined : user,
  };
}

function parseBasic(header: string | undefined): { email: string; key: string } {
  if (!header) throw unauthorized("Missing 'Authorization' header.");
  const [scheme, encoded] = header.split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !encoded) {
    throw unauthorized('This endpoint requires HTTP basic authentication.');
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw unauthorized('Invalid authorization header for basic auth');
  return { email: decoded.slice(0, colon), key: decoded.slice(colon + 1) };
}

/**
 * HTTP Basic with the API email (or, leniently, the real email) and the 32-character API key.
 * Every failure is 401 with the Basic challenge (UNAUTHORIZED, or USER_DEACTIVATED /
 * REALM_DEACTIVATED as Zulip answers); `res.locals.actor` is set on success.
 */
export function authenticate(db: Sequelize, config: Config): RequestHandler {
  return async (req, res, next) => {
    try {
      const { email, key } = parseBasic(req.headers.authorization);
      if (!/^[A-Za-z0-9]{32}$/.test(key)) throw unauthorized('Invalid API key');
      const { realm, user } = await realmAndKeyHolder(db, subdomainForHost(req.headers.host, config), key);
      if (!realm) throw unauthorized('Account is not associated with this subdomain');
      if (!user) throw unauthorized('Invalid API key');
      const matches = [apiEmail(user, realm, config), user.delivery_email].some(
        (e) => e.toLowerCase() === email.toLowerCase(),
      );
      if (!matches) throw unauthorized(`Invalid API key for user '${email}'`);
      // Zulip's own codes, so a client can tell "deactivated" from "wrong key" and stop retrying.
      if (realm.deactivated)
        throw unauthorized('This organization has been deactivated', 'REALM_DEACTIVATED');
      if (!user.is_active) throw unauthorized('Account is deactivated', 'USER_DEACTIVATED');
      const actor: Actor = { db, config, realm, user };
      res.locals.actor = actor;
      next();
    } catch (error) {
      next(error);
    }
  };
}

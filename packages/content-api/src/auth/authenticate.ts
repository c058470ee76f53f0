import type { RequestHandler, Request } from 'express';
import { ForbiddenError, UnauthorizedError, type Sequelize } from '@muse/core';
import { can, type Operation, type PermissionHolder, type Scope } from '../permissions/permissions.ts';
import type { TokenClaims, TokenSigner } from './tokens.ts';
import { selectUserRow, type UserRow } from '../users/user-row.ts';

/** The caller of a request, read from the database on every request (not from the token). */
export interface CurrentUser extends PermissionHolder {
  id: string;
  phone: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    user?: CurrentUser;
    /** The caller's row, as `authenticate` read it for this request. */
    account?: UserRow;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Verifies the bearer token, then loads the account: a banned or disabled account is refused
 * even with an unexpired token, and administrator rights come from the database, so revoking
 * them takes effect on the next request.
 */
export function authenticate(
  db: Sequelize,
  tokens: TokenSigner,
  needsToken: (req: Request) => boolean,
): RequestHandler {
  return async (req, _res, next) => {
    if (!needsToken(req)) return next();
    try {
      const token = bearerToken(req.headers.authorization);
      const { user, account } = await loadAccount(db, verifiedClaims(tokens, token).sub);
      req.user = user;
      req.account = account;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** A valid token's claims, naming an account id; else 401 (the REST API's and the sockets' check). */
export function verifiedClaims(tokens: TokenSigner, token: string): TokenClaims {
  let claims: TokenClaims;
  try {
    claims = tokens.verify(token);
  } catch {
    throw new UnauthorizedError('The token is invalid or expired; log in again');
  }
  if (!UUID.test(claims.sub)) throw new UnauthorizedError('The token is invalid or expired; log in again');
  return claims;
}

function bearerToken(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '');
  if (!match) throw new UnauthorizedError('Send the token as `Authorization: Bearer <token>`');
  return match[1]!;
}

/** The caller's account: the one read of it per request, which `GET /users/me` answers too. */
export async function loadAccount(
  db: Sequelize,
  id: string,
): Promise<{ user: CurrentUser; account: UserRow }> {
  const row = await selectUserRow(db, id);
  if (!row) throw new UnauthorizedError('The account of this token no longer exists');
  if (!row.is_active) throw new ForbiddenError('This account is disabled');
  const user = {
    id: row.id,
    phone: row.phone,
    isAdmin: row.is_admin,
    granted: row.permissions_granted,
    revoked: row.permissions_revoked,
  };
  return { user, account: row };
}

export async function loadUser(db: Sequelize, id: string): Promise<CurrentUser> {
  return (await loadAccount(db, id)).user;
}

/** The authenticated caller's row; routes behind `authenticate` can rely on it. */
export function currentAccount(req: Pick<Request, 'account'>): UserRow {
  if (!req.account) throw new UnauthorizedError();
  return req.account;
}

/** What the access checks read of a request: only its caller (any typed request fits). */
export type WithCaller = Pick<Request, 'user'>;

/** The authenticated caller; routes behind `authenticate` can rely on it. */
export function currentUser(req: WithCaller): CurrentUser {
  if (!req.user) throw new UnauthorizedError();
  return req.user;
}

/** 403 unless the caller holds `resource:operation:scope` (administrators hold everything). */
export function requirePermission(
  req: WithCaller,
  resource: string,
  operation: Operation,
  scope: Scope,
): CurrentUser {
  const user = currentUser(req);
  if (!can(user, resource, operation, scope)) {
    throw new ForbiddenError(`Missing permission ${resource}:${operation}:${scope}`);
  }
  return user;
}

export function requireAdmin(req: WithCaller): CurrentUser {
  const user = currentUser(req);
  if (!user.isAdmin) throw new ForbiddenError('Administrators only');
  return user;
}

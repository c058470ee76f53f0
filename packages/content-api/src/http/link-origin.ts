import type { Request } from 'express';

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;

/**
 * Where links this server hands out point (downloads, result files, payment notifications). A
 * client-supplied Host header must not choose the origin of a link that is handed on (to a
 * browser, a cache, another user, a payment provider), so the origin comes from
 * `MUSE_PUBLIC_URL`; without it, only a loopback Host (a development server) is taken as it is,
 * and any other request gets a link relative to the origin it called.
 */
export function linkOrigin(publicUrl: string | undefined, req: Pick<Request, 'protocol' | 'get'>): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const host = req.get('host') ?? '';
  return LOOPBACK_HOST.test(host) ? `${req.protocol}://${host}` : '';
}

import { randomBytes } from 'node:crypto';
import { json, startFakeServer, type FakeServer } from './server.ts';

export interface FakeZoom {
  server: FakeServer;
  clientId: string;
  clientSecret: string;
  meetings: { host: string }[];
  /** Makes every access token granted so far expire (Zoom answers 401 until refreshed). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

/**
 * Zoom's OAuth app flow and meetings API: GET /oauth/authorize approves at once and sends the
 * browser back to redirect_uri with a code and the state; POST /oauth/token (HTTP Basic with the
 * client id and secret) exchanges a code — only with the same redirect_uri — or a refresh token;
 * POST /v2/users/me/meetings needs a live access token.
 */
export async function startFakeZoom(): Promise<FakeZoom> {
  const clientId = `zoom-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(16).toString('hex');
  const codes = new Map<string, string>(); // code → redirect_uri
  const access = new Map<string, string>(); // access token → user
  const refresh = new Map<string, string>(); // refresh token → user
  const meetings: { host: string }[] = [];
  const grant = (user: string) => {
    const tokens = {
      access_token: randomBytes(12).toString('hex'),
      refresh_token: randomBytes(12).toString('hex'),
    };
    access.set(tokens.access_token, user);
    refresh.set(tokens.refresh_token, user);
    return { ...tokens, token_type: 'bearer', expires_in: 3599, scope: 'meeting:write' };
  };
  const server = await startFakeServer((request, res) => {
    const url = new URL(request.path, 'http://fake');
    if (request.method === 'GET' && url.pathname === '/oauth/authorize') {
      if (url.searchParams.get('client_id') !== clientId || url.searchParams.get('response_type') !== 'code')
        return json(res, 400, { reason: 'Invalid client_id' });
      const code = randomBytes(8).toString('hex');
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      codes.set(code, redirectUri);
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() });
      return void res.end();
    }
    if (request.method === 'POST' && url.pathname === '/oauth/token') {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (request.headers.authorization !== expected)
        return json(res, 401, { reason: 'Invalid client', error: 'invalid_client' });
      const form = new URLSearchParams(request.body);
      if (form.get('grant_type') === 'authorization_code') {
        const code = form.get('code') ?? '';
        if (codes.get(code) !== form.get('redirect_uri'))
          return json(res, 400, { reason: 'Invalid authorization code', error: 'invalid_grant' });
        codes.delete(code);
        return json(res, 200, grant(`user-${code}`));
      }
      if (form.get('grant_type') === 'refresh_token') {
        const user = refresh.get(form.get('refresh_token') ?? '');
        if (!user) return json(res, 400, { reason: 'Invalid Token!', error: 'invalid_request' });
        refresh.delete(form.get('refresh_token') ?? '');
        return json(res, 200, grant(user));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (request.method === 'POST' && url.pathname === '/v2/users/me/meetings') {
      const user = access.get(String(request.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!user) return json(res, 401, { code: 124, message: 'Invalid access token.' });
      meetings.push({ host: user });
      const id = 80000000000 + meetings.length;
      return json(res, 201, { id, join_url: `https://zoom.example/j/${id}` });
    }
    json(res, 404, { code: 404, message: 'Not found' });
  });
  return {
    server,
    clientId,
    clientSecret,
    meetings,
    expireAccessTokens: () => access.clear(),
    close: () => server.close(),
  };
}

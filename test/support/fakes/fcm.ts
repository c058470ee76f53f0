import { randomBytes } from 'node:crypto';
import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import { json, startFakeServer, type FakeServer } from './server.ts';

export interface FcmPush {
  token: string;
  data: Record<string, string>;
}

export interface FakeFcm {
  server: FakeServer;
  /** A service-account key file's contents pointing at this fake's token endpoint. */
  serviceAccount: {
    type: string;
    project_id: string;
    client_email: string;
    private_key: string;
    token_uri: string;
  };
  delivered: FcmPush[];
  /** Registration tokens FCM reports UNREGISTERED (404). */
  unregistered: Set<string>;
  close(): Promise<void>;
}

const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';

/**
 * Google OAuth + FCM HTTP v1: POST /token takes the RFC 7523 JWT-bearer grant (RS256, signed
 * with the service account's key, issuer the account, audience the token URI, the messaging
 * scope) and grants an access token; POST /v1/projects/<id>/messages:send needs that token.
 */
export async function startFakeFcm(projectId = 'muse-test'): Promise<FakeFcm> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  const granted = new Set<string>();
  const delivered: FcmPush[] = [];
  const unregistered = new Set<string>();
  const clientEmail = `push@${projectId}.iam.gserviceaccount.com`;
  let tokenUri = '';
  const server = await startFakeServer(async (request, res) => {
    if (request.method === 'POST' && request.path === '/token') {
      const form = new URLSearchParams(request.body);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer')
        return json(res, 400, { error: 'unsupported_grant_type' });
      try {
        const { payload } = await jwtVerify(form.get('assertion') ?? '', publicKey, {
          issuer: clientEmail,
          audience: tokenUri,
          algorithms: ['RS256'],
        });
        if (!String(payload.scope).split(' ').includes(SCOPE)) throw new Error('scope');
      } catch {
        return json(res, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
      }
      const accessToken = `ya29.${randomBytes(16).toString('hex')}`;
      granted.add(accessToken);
      return json(res, 200, { access_token: accessToken, expires_in: 3599, token_type: 'Bearer' });
    }
    if (request.method === 'POST' && request.path === `/v1/projects/${projectId}/messages:send`) {
      const bearer = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
      if (!granted.has(bearer))
        return json(res, 401, {
          error: { code: 401, status: 'UNAUTHENTICATED', message: 'invalid credentials' },
        });
      const { message } = JSON.parse(request.body) as { message: FcmPush };
      if (unregistered.has(message.token))
        return json(res, 404, {
          error: {
            code: 404,
            status: 'NOT_FOUND',
            message: 'Requested entity was not found.',
            details: [
              { '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' },
            ],
          },
        });
      delivered.push({ token: message.token, data: message.data });
      return json(res, 200, { name: `projects/${projectId}/messages/${delivered.length}` });
    }
    json(res, 404, { error: { code: 404, status: 'NOT_FOUND' } });
  });
  tokenUri = `${server.url}/token`;
  return {
    server,
    serviceAccount: {
      type: 'service_account',
      project_id: projectId,
      client_email: clientEmail,
      private_key: await exportPKCS8(privateKey as CryptoKey),
      token_uri: tokenUri,
    },
    delivered,
    unregistered,
    close: () => server.close(),
  };
}

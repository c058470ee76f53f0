import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startFakeServer, type FakeServer } from './server.ts';

export interface FakeBigBlueButton {
  server: FakeServer;
  /** The API base as an operator configures it (…/bigbluebutton/). */
  url: string;
  secret: string;
  meetings: Map<string, { name: string; camerasLocked: boolean }>;
  close(): Promise<void>;
}

function xml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/xml' });
  res.end(`<response>${body}</response>`);
}

/**
 * BigBlueButton's API: /bigbluebutton/api/<call>?…&checksum= where the checksum is
 * sha1(call + query-without-checksum + shared secret), refused otherwise (checksumError).
 * `create` is idempotent; `join` of a running meeting redirects to the client.
 */
export async function startFakeBigBlueButton(): Promise<FakeBigBlueButton> {
  const secret = randomBytes(16).toString('hex');
  const meetings = new Map<string, { name: string; camerasLocked: boolean }>();
  const server = await startFakeServer((request, res) => {
    const match = /^\/bigbluebutton\/api\/(\w+)\?(.*)$/.exec(request.path);
    if (!match?.[1] || match[2] === undefined) return xml(res, 404, '<returncode>FAILED</returncode>');
    const [, call, query] = match;
    const at = query.lastIndexOf('&checksum=');
    const unsigned = at < 0 ? query : query.slice(0, at);
    const checksum = at < 0 ? '' : query.slice(at + '&checksum='.length);
    if (createHash('sha1').update(`${call}${unsigned}${secret}`).digest('hex') !== checksum)
      return xml(
        res,
        200,
        '<returncode>FAILED</returncode><messageKey>checksumError</messageKey><message>Checksums do not match</message>',
      );
    const params = new URLSearchParams(unsigned);
    const meetingId = params.get('meetingID') ?? '';
    if (call === 'create') {
      if (!meetings.has(meetingId))
        meetings.set(meetingId, {
          name: params.get('name') ?? '',
          camerasLocked: params.get('lockSettingsDisableCam') === 'true',
        });
      return xml(res, 200, `<returncode>SUCCESS</returncode><meetingID>${meetingId}</meetingID>`);
    }
    if (call === 'join') {
      if (!meetings.has(meetingId))
        return xml(
          res,
          200,
          '<returncode>FAILED</returncode><messageKey>notFound</messageKey><message>The meeting does not exist</message>',
        );
      res.writeHead(302, { location: `${server.url}/html5client/join?role=${params.get('role')}` });
      return void res.end();
    }
    xml(res, 200, '<returncode>FAILED</returncode><messageKey>unsupportedRequest</messageKey>');
  });
  return { server, url: `${server.url}/bigbluebutton/`, secret, meetings, close: () => server.close() };
}

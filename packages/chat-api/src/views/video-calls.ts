import type { Request } from 'express';
import { realmUrl } from '../domain/lib/realms.ts';
import {
  bigBlueButtonJoinUrl,
  completeZoomAuthorization,
  createVideoCall,
  removeZoomToken,
  VIDEO_CHAT_PROVIDER,
  zoomAuthorizeUrl,
} from '../domain/actions/video-calls.ts';
import { requestRealm } from '../http/auth.ts';
import { endpoint } from '../http/endpoint.ts';
import { JsonableError } from '../http/errors.ts';
import { p } from '../http/params.ts';
import type { ChatRuntime } from './context.ts';

const ZOOM_COMPLETE_PATH = '/api/v1/calls/zoom/complete';
const callUrl = { required: ['url'], properties: { url: { type: 'string', description: 'The call URL.' } } };

function redirect(req: Request, url: string): void {
  req.res?.redirect(302, url);
}

/** Where Zoom sends the browser back: the organization's URL, which the Zoom app must allow. */
async function zoomRedirectUri(runtime: ChatRuntime, req: Request): Promise<string> {
  const realm = await requestRealm(runtime.db, runtime.config, req.headers.host);
  if (!realm) throw new JsonableError('Invalid organization');
  return `${realmUrl(realm, runtime.config, { protocol: req.protocol, host: req.headers.host })}${ZOOM_COMPLETE_PATH}`;
}

/** Video calls with the organization's provider (Jitsi, BigBlueButton, Zoom) and Zoom's per-user OAuth. */
export const videoCallEndpoints = [
  endpoint({
    method: 'post',
    path: '/calls/videocall/create',
    operationId: 'createVideoCall',
    summary: "A call URL from the organization's provider (Jitsi, BigBlueButton, Zoom)",
    description:
      'Jitsi: a new room on MUSE_VIDEO_JITSI_URL. BigBlueButton: a relative, signed link to ' +
      '/api/v1/calls/bigbluebutton/join. Zoom: a meeting created as the caller, who must have connected ' +
      'Zoom (otherwise 400 INVALID_ZOOM_TOKEN; see has_videocall_token). An organization without a ' +
      'provider, or a provider this server has no settings for, is 400 BAD_REQUEST.',
    response: callUrl,
    example: { response: { url: 'https://meet.jit.si/8c1d5e0f3a7b2946#config.startWithVideoMuted=false' } },
    view: async (_params, actor) => ({
      url: await createVideoCall(actor, actor.runtime.video, {
        meetingName: `${actor.user.full_name}'s call`,
        voiceOnly: false,
      }),
    }),
  }),
  endpoint({
    method: 'get',
    path: '/calls/bigbluebutton/create',
    operationId: 'createBigBlueButtonCall',
    summary: "A signed BigBlueButton call link, whatever the organization's provider",
    description:
      'Any member; the link points at GET /calls/bigbluebutton/join on this server with the ' +
      "meeting's fields signed, so it can be pasted into a message. The caller becomes the " +
      "meeting's moderator; voice_only starts it without video. Without BigBlueButton configured on " +
      'the server (MUSE_VIDEO_BBB_URL, MUSE_VIDEO_BBB_SECRET) it is 400 "BigBlueButton is not configured on this server".',
    params: { meeting_name: p.string(), voice_only: p.bool().default(false) },
    response: callUrl,
    example: {
      params: { meeting_name: 'Design review', voice_only: false },
      response: {
        url: '/api/v1/calls/bigbluebutton/join?meeting_id=muse-7f3c2a91d04b8e6c5a19&name=Design+review&voice_only=false&moderator=8&checksum=9f2c4e1a7b3d8c6e0f5a2b4d6c8e1f3a5b7d9c0e2f4a6b8d1c3e5f7a9b0d2c4e6',
      },
    },
    view: async (params, actor) => ({
      url: await createVideoCall(actor, actor.runtime.video, {
        meetingName: params.meeting_name,
        voiceOnly: params.voice_only,
        provider: VIDEO_CHAT_PROVIDER.bigbluebutton,
      }),
    }),
  }),
  endpoint({
    method: 'get',
    path: '/calls/bigbluebutton/join',
    operationId: 'joinBigBlueButtonCall',
    summary: "Opens a call link: answers 302 to BigBlueButton's signed join URL",
    description:
      'Checks the link\'s signature (a changed field is 400 "Invalid call link"), creates the meeting ' +
      "(idempotent) and redirects; the link's creator joins as moderator, everyone else as viewer.",
    params: {
      meeting_id: p.string(),
      name: p.string(),
      voice_only: p.string(),
      moderator: p.string(),
      checksum: p.string(),
    },
    redirect: "BigBlueButton's join URL for the caller, signed with the server's secret.",
    example: {
      params: {
        meeting_id: 'muse-7f3c2a91d04b8e6c5a19',
        name: 'Design review',
        voice_only: 'false',
        moderator: '8',
        checksum: '9f2c4e1a7b3d8c6e0f5a2b4d6c8e1f3a5b7d9c0e2f4a6b8d1c3e5f7a9b0d2c4e6',
      },
      location:
        'https://bbb.example.com/bigbluebutton/api/join?meetingID=muse-7f3c2a91d04b8e6c5a19&fullName=Grace+Hopper&role=VIEWER&redirect=true&checksum=1b6453892473a467d07372d45eb05abc2031647a',
    },
    view: async (params, actor, req) =>
      redirect(req, await bigBlueButtonJoinUrl(actor, actor.runtime.video, params)),
  }),
  endpoint({
    method: 'post',
    path: '/calls/zoom/create',
    operationId: 'createZoomCall',
    summary: 'A Zoom meeting created as the caller; 400 INVALID_ZOOM_TOKEN without a usable token',
    description: 'An expired access token is refreshed once; a refused refresh forgets the token.',
    response: callUrl,
    example: { response: { url: 'https://us06web.zoom.us/j/85643729104?pwd=dXhZa3RLc0N6Q2VvR1BVdz09' } },
    view: async (_params, actor) => ({
      url: await createVideoCall(actor, actor.runtime.video, {
        meetingName: `${actor.user.full_name}'s call`,
        voiceOnly: false,
        provider: VIDEO_CHAT_PROVIDER.zoom,
      }),
    }),
  }),
  endpoint({
    method: 'get',
    path: '/calls/zoom/register',
    operationId: 'startZoomAuthorization',
    summary: "Answers 302 to Zoom's OAuth authorization, with a signed state naming the caller",
    description:
      "Opened in the user's browser (with the API's Basic auth) to link their Zoom account: the " +
      'answer redirects to Zoom, which sends the browser back to GET /calls/zoom/complete. Without ' +
      'Zoom configured on the server it is 400 "Zoom is not configured on this server".',
    redirect: "Zoom's OAuth authorization page, with the signed state and where Zoom sends the browser back.",
    example: {
      location:
        'https://zoom.us/oauth/authorize?response_type=code&client_id=Xk2rT9vQS8aLm3nB4cD5e&redirect_uri=https%3A%2F%2Fchat.example.com%2Fapi%2Fv1%2Fcalls%2Fzoom%2Fcomplete&state=1.8.q2Vx0mLk7cJ4tR9wNfZ3bYh6sD1aPe8uG5iOjK2lM0Q',
    },
    view: async (_params, actor, req) =>
      redirect(req, zoomAuthorizeUrl(actor, actor.runtime.video, await zoomRedirectUri(actor.runtime, req))),
  }),
  endpoint({
    method: 'get',
    path: '/calls/zoom/complete',
    operationId: 'completeZoomAuthorization',
    summary:
      "Zoom's redirect back: stores the user's token, sends has_zoom_token and has_videocall_token events",
    description: 'The browser carries no API key: the signed state names the user (a forged one is 400).',
    public: true,
    params: { code: p.string(), state: p.string() },
    example: {
      params: { code: 'pBs8x3ZLk2_qT9VwYd4mNr', state: '1.8.q2Vx0mLk7cJ4tR9wNfZ3bYh6sD1aPe8uG5iOjK2lM0Q' },
      response: {},
    },
    view: async (params, runtime, req) => {
      await completeZoomAuthorization(runtime.db, runtime.video, {
        code: params.code,
        state: params.state,
        redirectUri: await zoomRedirectUri(runtime, req),
      });
    },
  }),
  endpoint({
    method: 'delete',
    path: '/calls/zoom',
    operationId: 'removeZoomToken',
    summary: "Forget the caller's Zoom token (has_videocall_token becomes false)",
    description:
      "The caller's Zoom account is unlinked; Zoom calls need GET /calls/zoom/register again. When " +
      "a token was stored, the caller's clients get has_zoom_token and has_videocall_token with " +
      'value false. Having none is no error.',
    example: { response: {} },
    view: async (_params, actor) => {
      await removeZoomToken(actor);
    },
  }),
];

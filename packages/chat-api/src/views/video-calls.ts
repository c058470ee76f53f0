import type { Request, Router } from 'express';
import { realmUrl } from '../domain/realms.ts';
import {
  bigBlueButtonJoinUrl,
  completeZoomAuthorization,
  createVideoCall,
  removeZoomToken,
  VIDEO_CHAT_PROVIDER,
  zoomAuthorizeUrl,
} from '../domain/video-calls.ts';
import { requestRealm } from '../http/auth.ts';
import { JsonableError } from '../http/errors.ts';
import { endpoint, p } from '../http/params.ts';
import { anonymous, authed, type ChatRuntime } from './context.ts';

const ZOOM_COMPLETE_PATH = '/api/v1/calls/zoom/complete';

function redirect(req: Request, url: string): void {
  req.res?.redirect(302, url);
}

/** Where Zoom sends the browser back: the organization's URL, so it matches what Zoom's app allows. */
async function zoomRedirectUri(runtime: ChatRuntime, req: Request): Promise<string> {
  const realm = await requestRealm(runtime.db, runtime.config, req.headers.host);
  if (!realm) throw new JsonableError('Invalid organization');
  return `${realmUrl(realm, runtime.config, req.protocol)}${ZOOM_COMPLETE_PATH}`;
}

/** Zoom's OAuth return leg: the browser carries no API key, the signed state names the user. */
export function publicVideoCallRoutes(router: Router, runtime: ChatRuntime): void {
  router.get(
    '/calls/zoom/complete',
    endpoint({ code: p.string(), state: p.string() }, anonymous(runtime), async (params, rt, req) => {
      await completeZoomAuthorization(rt.db, rt.video, {
        code: params.code,
        state: params.state,
        redirectUri: await zoomRedirectUri(rt, req),
      });
    }),
  );
}

/** Video calls with the organization's provider (Jitsi, BigBlueButton, Zoom) and Zoom's per-user OAuth. */
export function videoCallRoutes(router: Router, runtime: ChatRuntime): void {
  const ctx = authed(runtime);

  router.post(
    '/calls/videocall/create',
    endpoint({}, ctx, async (_params, actor) => ({
      url: await createVideoCall(actor, runtime.video, {
        meetingName: `${actor.user.full_name}'s call`,
        voiceOnly: false,
      }),
    })),
  );

  router.get(
    '/calls/bigbluebutton/create',
    endpoint(
      { meeting_name: p.string(), voice_only: p.bool().default(false) },
      ctx,
      async (params, actor) => ({
        url: await createVideoCall(actor, runtime.video, {
          meetingName: params.meeting_name,
          voiceOnly: params.voice_only,
          provider: VIDEO_CHAT_PROVIDER.bigbluebutton,
        }),
      }),
    ),
  );

  router.get(
    '/calls/bigbluebutton/join',
    endpoint(
      {
        meeting_id: p.string(),
        name: p.string(),
        voice_only: p.string(),
        moderator: p.string(),
        checksum: p.string(),
      },
      ctx,
      async (params, actor, req) => redirect(req, await bigBlueButtonJoinUrl(actor, runtime.video, params)),
    ),
  );

  router.post(
    '/calls/zoom/create',
    endpoint({}, ctx, async (_params, actor) => ({
      url: await createVideoCall(actor, runtime.video, {
        meetingName: `${actor.user.full_name}'s call`,
        voiceOnly: false,
        provider: VIDEO_CHAT_PROVIDER.zoom,
      }),
    })),
  );

  router.get(
    '/calls/zoom/register',
    endpoint({}, ctx, async (_params, actor, req) =>
      redirect(req, zoomAuthorizeUrl(actor, runtime.video, await zoomRedirectUri(runtime, req))),
    ),
  );

  router.delete(
    '/calls/zoom',
    endpoint({}, ctx, async (_params, actor) => {
      await removeZoomToken(actor);
    }),
  );
}

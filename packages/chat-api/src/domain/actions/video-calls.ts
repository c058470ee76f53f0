import { randomBytes } from 'node:crypto';
import type { Sequelize } from '@muse/core';
import { JsonableError } from '../errors.ts';
import { sign, verify, ZoomTokenInvalid, type VideoProviders, type ZoomTokens } from '../../video/index.ts';
import type { Actor } from '../context.ts';
import { sendEvent } from '../lib/events/log.ts';
import type { User } from '../lib/users.ts';
import { exec, one, transact } from '@muse/core';

/** Zulip's numbers for `realm_video_chat_provider`. */
export const VIDEO_CHAT_PROVIDER = { none: 0, jitsi: 1, zoom: 3, bigbluebutton: 4 } as const;

const notConfigured = (name: string) => new JsonableError(`${name} is not configured on this server`);
const invalidZoomToken = () => new JsonableError('Invalid Zoom access token', { code: 'INVALID_ZOOM_TOKEN' });

/** The path (relative, as Zulip's) that opens a BigBlueButton call, signed so nobody forges a moderator. */
function bigBlueButtonLink(secret: string, fields: Record<string, string>): string {
  const query = new URLSearchParams(fields);
  query.set('checksum', sign(secret, new URLSearchParams(fields).toString()));
  return `/api/v1/calls/bigbluebutton/join?${query}`;
}

/**
 * POST /calls/videocall/create (and Zulip's per-provider create endpoints): a call URL from the
 * organization's provider. Jitsi needs nothing; BigBlueButton gets a signed link to our join
 * endpoint; Zoom creates a meeting as the user (OAuth token required, refreshed when expired).
 */
export async function createVideoCall(
  actor: Actor,
  providers: VideoProviders,
  options: { meetingName: string; voiceOnly: boolean; provider?: number },
): Promise<string> {
  const provider = options.provider ?? actor.realm.video_chat_provider;
  switch (provider) {
    case VIDEO_CHAT_PROVIDER.jitsi:
      if (!providers.jitsiUrl) throw notConfigured('Jitsi Meet');
      return `${providers.jitsiUrl}/${randomBytes(8).toString('hex')}#config.startWithVideoMuted=${options.voiceOnly}`;
    case VIDEO_CHAT_PROVIDER.bigbluebutton: {
      if (!providers.bigBlueButton) throw notConfigured('BigBlueButton');
      return bigBlueButtonLink(providers.bigBlueButton.secret, {
        meeting_id: `muse-${randomBytes(10).toString('hex')}`,
        name: options.meetingName,
        voice_only: String(options.voiceOnly),
        moderator: String(actor.user.id),
      });
    }
    case VIDEO_CHAT_PROVIDER.zoom: {
      if (!providers.zoom) throw notConfigured('Zoom');
      if (!actor.user.zoom_token) throw invalidZoomToken();
      try {
        const { url, tokens } = await providers.zoom.client.createMeeting(actor.user.zoom_token);
        if (tokens.access_token !== actor.user.zoom_token.access_token)
          await storeZoomToken(actor.db, actor.user, tokens);
        return url;
      } catch (error) {
        if (!(error instanceof ZoomTokenInvalid)) throw error;
        await storeZoomToken(actor.db, actor.user, null);
        throw invalidZoomToken();
      }
    }
    default:
      throw new JsonableError('Video calls are not enabled in this organization');
  }
}

/** GET /calls/bigbluebutton/join: checks our signature, creates the meeting, answers BigBlueButton's signed join URL. */
export async function bigBlueButtonJoinUrl(
  actor: Actor,
  providers: VideoProviders,
  fields: { meeting_id: string; name: string; voice_only: string; moderator: string; checksum: string },
): Promise<string> {
  if (!providers.bigBlueButton) throw notConfigured('BigBlueButton');
  const { checksum, ...signed } = fields;
  if (!verify(providers.bigBlueButton.secret, new URLSearchParams(signed).toString(), checksum))
    throw new JsonableError('Invalid call link');
  const { api } = providers.bigBlueButton;
  await api.create(fields.meeting_id, fields.name, fields.voice_only === 'true');
  return api.joinUrl(fields.meeting_id, actor.user.full_name, fields.moderator === String(actor.user.id));
}

/** Keeps (or forgets) the user's Zoom token and tells their clients, under Zulip's and the spec's event names. */
async function storeZoomToken(db: Sequelize, user: User, tokens: ZoomTokens | null): Promise<void> {
  await transact(db, async (t) => {
    await exec(
      db,
      'UPDATE chat.users SET zoom_token = CAST(:tokens AS jsonb) WHERE id = :id',
      {
        tokens: tokens ? JSON.stringify(tokens) : null,
        id: user.id,
      },
      t,
    );
    if ((user.zoom_token !== null) === (tokens !== null)) return;
    for (const type of ['has_zoom_token', 'has_videocall_token'])
      await sendEvent(db, t, [user.id], { type, value: tokens !== null });
  });
}

/** The OAuth `state`: which user asked, signed with the app secret, since Zoom sends the browser back without our credentials. */
export function zoomAuthorizeUrl(actor: Actor, providers: VideoProviders, redirectUri: string): string {
  if (!providers.zoom) throw notConfigured('Zoom');
  const subject = `${actor.realm.id}.${actor.user.id}`;
  return providers.zoom.client.authorizeUrl(
    redirectUri,
    `${subject}.${sign(providers.zoom.secret, subject)}`,
  );
}

/** GET /calls/zoom/complete: the browser returns from Zoom with a code for the user named by the state. */
export async function completeZoomAuthorization(
  db: Sequelize,
  providers: VideoProviders,
  input: { state: string; code: string; redirectUri: string },
): Promise<void> {
  if (!providers.zoom) throw notConfigured('Zoom');
  const [realmId, userId, signature] = input.state.split('.');
  if (!realmId || !userId || !signature || !verify(providers.zoom.secret, `${realmId}.${userId}`, signature))
    throw new JsonableError('Invalid Zoom authorization state');
  const user = await one<User>(
    db,
    'SELECT * FROM chat.users WHERE id = :id AND realm_id = :realmId AND is_active',
    {
      id: Number(userId),
      realmId: Number(realmId),
    },
  );
  if (!user) throw new JsonableError('Invalid Zoom authorization state');
  try {
    await storeZoomToken(db, user, await providers.zoom.client.exchangeCode(input.code, input.redirectUri));
  } catch (error) {
    if (error instanceof ZoomTokenInvalid) throw new JsonableError('Zoom did not accept the authorization');
    throw error;
  }
}

/** DELETE /calls/zoom: forget the user's Zoom token. */
export async function removeZoomToken(actor: Actor): Promise<void> {
  await storeZoomToken(actor.db, actor.user, null);
}

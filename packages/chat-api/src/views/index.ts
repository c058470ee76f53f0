import type { Endpoint } from '../http/endpoint.ts';
import { alertWordEndpoints } from './alert-words.ts';
import { apiKeyEndpoints } from './api-keys.ts';
import { draftEndpoints } from './drafts.ts';
import { eventEndpoints } from './events.ts';
import { messageEndpoints } from './messages.ts';
import { messageLifecycleEndpoints } from './message-lifecycle.ts';
import { channelEndpoints } from './channels.ts';
import { presenceEndpoints } from './presence.ts';
import { settingsEndpoints } from './settings.ts';
import { profileDataEndpoints } from './profile-data.ts';
import { savedSnippetEndpoints } from './saved-snippets.ts';
import { scheduledMessageEndpoints } from './scheduled-messages.ts';
import { serverSettingsEndpoints } from './server-settings.ts';
import { subscriptionEndpoints } from './subscriptions.ts';
import { pushEndpoints } from './push.ts';
import { userGroupEndpoints } from './user-groups.ts';
import { userEndpoints } from './users.ts';
import { videoCallEndpoints } from './video-calls.ts';

/**
 * Every endpoint of the messaging API under /api/v1, by area. The routes, the served OpenAPI
 * document and the tests all read this one list.
 */
export const chatEndpoints: readonly Endpoint[] = [
  ...apiKeyEndpoints,
  ...serverSettingsEndpoints,
  ...subscriptionEndpoints,
  ...alertWordEndpoints,
  ...profileDataEndpoints,
  ...eventEndpoints,
  ...messageEndpoints,
  ...messageLifecycleEndpoints,
  ...channelEndpoints,
  ...presenceEndpoints,
  ...settingsEndpoints,
  ...scheduledMessageEndpoints,
  ...draftEndpoints,
  ...savedSnippetEndpoints,
  ...userEndpoints,
  ...userGroupEndpoints,
  ...pushEndpoints,
  ...videoCallEndpoints,
];

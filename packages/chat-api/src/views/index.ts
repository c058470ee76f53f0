import type { Endpoint } from '../http/endpoint.ts';
import { alertWordEndpoints } from './alert-words.ts';
import { apiKeyEndpoints } from './api-keys.ts';
import { botEndpoints } from './bots.ts';
import { botStorageEndpoints } from './bot-storage.ts';
import { uploadEndpoints } from './uploads.ts';
import { draftEndpoints } from './drafts.ts';
import { eventEndpoints } from './events.ts';
import { messageEndpoints } from './messages.ts';
import { linkifierEndpoints } from './linkifiers.ts';
import { messageLifecycleEndpoints } from './message-lifecycle.ts';
import { channelEndpoints } from './channels.ts';
import { presenceEndpoints } from './presence.ts';
import { realmEndpoints } from './realm.ts';
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

/** The endpoints of one view module, under one tag of the served document. */
interface Area {
  tag: string;
  description: string;
  endpoints: readonly Endpoint[];
}

/**
 * The messaging API under /api/v1, by area: each area is a tag of the served OpenAPI document
 * (the reference page groups operations by it). A new view module adds its line here.
 */
export const chatAreas: readonly Area[] = [
  {
    tag: 'API keys',
    description: 'Logging in: an API key for an email and password.',
    endpoints: apiKeyEndpoints,
  },
  {
    tag: 'Server',
    description: "The server's and the organization's settings.",
    endpoints: [...serverSettingsEndpoints, ...realmEndpoints],
  },
  {
    tag: 'Subscriptions',
    description: 'Subscribing to channels, and the settings of a subscription.',
    endpoints: subscriptionEndpoints,
  },
  {
    tag: 'Alert words',
    description: "Words that mark a message for the caller's attention.",
    endpoints: alertWordEndpoints,
  },
  {
    tag: 'Custom profile fields',
    description: "The organization's profile fields and users' values.",
    endpoints: profileDataEndpoints,
  },
  {
    tag: 'Real-time events',
    description: 'Event queues: register, long-poll, delete.',
    endpoints: eventEndpoints,
  },
  { tag: 'Messages', description: 'Sending and reading messages.', endpoints: messageEndpoints },
  {
    tag: 'Message changes',
    description: 'Editing, deleting, reactions, read flags and history of sent messages.',
    endpoints: messageLifecycleEndpoints,
  },
  { tag: 'Channels', description: 'Creating and changing channels.', endpoints: channelEndpoints },
  { tag: 'Presence', description: 'Who is online, and typing notifications.', endpoints: presenceEndpoints },
  {
    tag: 'Linkifiers',
    description: "The organization's patterns that messages' Markdown turns into links.",
    endpoints: linkifierEndpoints,
  },
  {
    tag: 'Settings',
    description: "The caller's settings, muted topics and the organization's emoji.",
    endpoints: settingsEndpoints,
  },
  {
    tag: 'Scheduled messages',
    description: 'Messages sent later, at a given time.',
    endpoints: scheduledMessageEndpoints,
  },
  { tag: 'Drafts', description: "The caller's unsent messages.", endpoints: draftEndpoints },
  { tag: 'Saved snippets', description: 'Reusable message texts.', endpoints: savedSnippetEndpoints },
  { tag: 'Users', description: 'Users, their status and their settings.', endpoints: userEndpoints },
  { tag: 'User groups', description: 'Groups of users and their members.', endpoints: userGroupEndpoints },
  { tag: 'Mobile push', description: 'Devices registered for push notifications.', endpoints: pushEndpoints },
  {
    tag: 'Bots',
    description: "Bot accounts, and a bot's key–value storage.",
    endpoints: [...botEndpoints, ...botStorageEndpoints],
  },
  {
    tag: 'Uploads',
    description: 'Uploaded files and the messages that share them.',
    endpoints: uploadEndpoints,
  },
  {
    tag: 'Video calls',
    description: 'Calls through Jitsi, BigBlueButton or Zoom.',
    endpoints: videoCallEndpoints,
  },
];

/** Every endpoint, tagged with its area: the routes, the served document and the tests read this list. */
export const chatEndpoints: readonly Endpoint[] = chatAreas.flatMap((area) =>
  area.endpoints.map((declared) => ({ ...declared, tag: area.tag })),
);

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeOrganization, makeUser, type TestUser } from '@muse/test-support/chat';
import { startFakeBigBlueButton, type FakeBigBlueButton } from './support/fakes/bigbluebutton.ts';
import { startFakeZoom, type FakeZoom } from './support/fakes/zoom.ts';
import { expectDocumentedAnswer, servedContract } from './support/contract.ts';
import { startTestStack, type TestStack } from './support/stack.ts';

/**
 * The messaging API's examples (declared beside each endpoint, `example` in http/endpoint.ts) are
 * made against the live API, so that what the reference page shows cannot rot: every operation
 * under /api/v1 shows one (the first test names those that do not), each example request is
 * answered 200 (302 for the two that redirect a browser), its example answer is one the document
 * allows, and the live answer has the same fields.
 *
 * Examples speak of the channel `design` and of the ids of a small organization; the world made
 * here holds what they name (see `makeWorld`), and its live ids replace the examples' ones by
 * parameter name. An operation that consumes what it names (a deletion, a deactivation) gets its
 * own copy, and one another member must make (a user leaving) its own caller, so that no example
 * takes away what a later one names.
 */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  example?: unknown;
  content?: Record<string, { example?: unknown }>;
}
type Media = { schema?: { required?: string[] }; example?: Record<string, unknown> };
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<
    string,
    {
      content?: Record<string, { example?: Record<string, unknown> }>;
      headers?: Record<string, { example?: string }>;
    }
  >;
}
type Document = { paths: Record<string, Record<string, Operation>> };

interface Example {
  method: (typeof METHODS)[number];
  route: string;
  operation: Operation;
  path: Record<string, unknown>;
  params: Record<string, unknown>;
  response: Record<string, unknown> | undefined;
  /** Where an operation that answers 302 sends the browser. */
  location: string | undefined;
  redirects: boolean;
  takesFile: boolean;
  /** Required parameters (the file part aside) the example gives no value for. */
  unshown: string[];
}

/** What an example's call needs: who makes it, and live values for the parameters it names. */
interface Setting {
  caller?: TestUser;
  /** Made just before the call when they depend on what the examples before it did. */
  values?: Record<string, unknown> | (() => Promise<Record<string, unknown>>);
}

let stack: TestStack;
let caller: TestUser;
/** Live values by parameter name, for every example. */
let world: Record<string, unknown>;
/** By operation id: a caller or values of its own. */
let settings: Record<string, Setting>;

let zoom: FakeZoom;
let bigBlueButton: FakeBigBlueButton;

beforeAll(async () => {
  // Every video provider, so that each call operation has something to answer with.
  [zoom, bigBlueButton] = await Promise.all([startFakeZoom(), startFakeBigBlueButton()]);
  stack = await startTestStack({
    MUSE_PUSH_SENDER: 'log',
    MUSE_CHAT_DEV_ENDPOINTS: 'true',
    MUSE_VIDEO_JITSI_URL: 'https://meet.jit.si',
    MUSE_VIDEO_BBB_URL: bigBlueButton.url,
    MUSE_VIDEO_BBB_SECRET: bigBlueButton.secret,
    MUSE_VIDEO_ZOOM_CLIENT_ID: zoom.clientId,
    MUSE_VIDEO_ZOOM_CLIENT_SECRET: zoom.clientSecret,
    MUSE_VIDEO_ZOOM_OAUTH_URL: zoom.server.url,
    MUSE_VIDEO_ZOOM_API_URL: zoom.server.url,
  });
  await makeOrganization(stack);
  ({ caller, world, settings } = await makeWorld());
});
afterAll(async () => {
  await stack?.stop();
  await Promise.all([zoom?.close(), bigBlueButton?.close()]);
});

type Client = (
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  route: string,
  params?: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/** Calls made as `user` while building the world: each must succeed. */
const callsAs =
  (user: TestUser): Client =>
  async (method, route, params = {}) => {
    const answer = await call(stack.chatUrl, method, route, user, params);
    expect({ route, status: answer.status, body: answer.body }).toMatchObject({ route, status: 200 });
    return answer.body;
  };

/** The people of the examples: Ada owns the organization and makes the calls. */
async function makePeople() {
  return {
    ada: await makeUser(stack, { role: 100, name: 'Ada Lovelace', canCreateUsers: true }),
    grace: await makeUser(stack, { name: 'Grace Hopper' }),
    alan: await makeUser(stack, { name: 'Alan Turing' }),
    /** Deactivates her own account. */
    leaver: await makeUser(stack, { name: 'Margaret Hamilton' }),
    /** Deactivated by Ada. */
    leaving: await makeUser(stack, { name: 'Edsger Dijkstra' }),
    /** Already deactivated, to be reactivated. */
    gone: await makeUser(stack, { name: 'Barbara Liskov' }),
  };
}
type People = Awaited<ReturnType<typeof makePeople>>;

/**
 * Ada and Grace in `design`, Ada also in `random` and `old-website`; Ada's queues registered, then
 * her messages sent (so that a queue has an event to give), one read by Grace; Grace with a status
 * and a presence; Barbara deactivated.
 */
async function makeConversation({ ada, grace, gone }: People) {
  const [byAda, byGrace] = [callsAs(ada), callsAs(grace)];
  for (const client of [byAda, byGrace])
    await client('POST', '/users/me/subscriptions', { subscriptions: [{ name: 'design' }] });
  await byAda('POST', '/users/me/subscriptions', {
    subscriptions: [{ name: 'random' }, { name: 'old-website' }],
  });
  const channel = async (name: string) =>
    (await byAda('GET', '/get_stream_id', { stream: name })).stream_id as number;
  const queues = [
    await byAda('POST', '/register', { event_types: ['message'] }),
    await byAda('POST', '/register', { event_types: ['message'] }),
  ].map((queue) => queue.queue_id as string);
  const send = async (content: string, topic = 'launch plan') =>
    (await byAda('POST', '/messages', { type: 'stream', to: 'design', topic, content })).id as number;
  const messages = [
    await send('The mock-ups are ready for review.'),
    await send('The logo variants are in the shared folder.', 'logo'),
    await send('Wrong channel, sorry.'),
  ];
  await byGrace('POST', '/users/me/presence', { status: 'active', new_user_input: true });
  await byGrace('POST', '/users/me/status', { status_text: 'In a meeting', emoji_name: 'calendar' });
  await byGrace('POST', '/messages/flags', { messages: [messages[0]], op: 'add', flag: 'read' });
  await byAda('DELETE', `/users/${gone.id}`);
  return { design: await channel('design'), oldWebsite: await channel('old-website'), queues, messages };
}

const DRAFT = { type: 'stream', topic: 'launch plan', content: 'Can we move the review to Thursday?' };

/** Makers of the things examples read or change, each made by Ada; called once more for a spare. */
function makers(byAda: Client, design: number, deliveryTime: number) {
  const made = async (route: string, params: Record<string, unknown>, field: string) =>
    (await byAda('POST', route, params))[field] as number;
  return {
    draft: async () =>
      ((await byAda('POST', '/drafts', { drafts: [{ ...DRAFT, to: [design] }] })).ids as number[])[0],
    snippet: () =>
      made(
        '/saved_snippets',
        { title: 'Review request', content: 'Could you review this by end of day?' },
        'saved_snippet_id',
      ),
    scheduled: () =>
      made(
        '/scheduled_messages',
        {
          type: 'stream',
          to: design,
          topic: 'launch plan',
          content: 'Reminder: the design review starts in an hour.',
          scheduled_delivery_timestamp: deliveryTime,
        },
        'scheduled_message_id',
      ),
    linkifier: (pattern: string) =>
      made('/realm/filters', { pattern, url_template: 'https://tracker.example.com/issue/{id}' }, 'id'),
    group: (name: string, members: number[]) =>
      made('/user_groups/create', { name, description: `The ${name}`, members }, 'group_id'),
    bot: (name: string) =>
      made('/bots', { full_name: `${name} bot`, short_name: name.toLowerCase() }, 'user_id'),
    field: () => made('/realm/profile_fields', { name: 'Phone number', field_type: 1 }, 'id'),
  };
}

/** Ada's upload of a file no message links yet; its attachment id. */
async function upload(ada: TestUser): Promise<number> {
  const form = new FormData();
  form.set('file', new Blob(['%PDF-1.4\n'], { type: 'application/pdf' }), 'plan.pdf');
  const answer = await fetch(`${stack.chatUrl}/api/v1/user_uploads`, {
    method: 'POST',
    headers: { authorization: basic(ada) },
    body: form,
  });
  expect(answer.status).toBe(200);
  return ((await callsAs(ada)('GET', '/attachments')).attachments as { id: number }[]).at(-1)!.id;
}

/** Ada's push devices, one for each example that removes or notifies one: their tokens. */
async function registerDevices(byAda: Client) {
  const tokens = {
    apns: [1, 2].map((n) => `${'ab'.repeat(31)}0${n}`),
    fcm: [1, 2, 3].map((n) => `fcm-registration-${n}`),
  };
  await byAda('POST', '/users/me/apns_device_token', { token: tokens.apns[0], appid: 'org.zulip.Zulip' });
  await byAda('POST', '/users/me/ios_device_token', { token: tokens.apns[1], appid: 'org.zulip.Zulip' });
  for (const token of tokens.fcm) await byAda('POST', '/users/me/android_gcm_reg_id', { token });
  return tokens;
}

/**
 * The organization the examples speak of (see `makeConversation`), with one of each thing the
 * examples read or change — a draft, a snippet, a scheduled message, a linkifier, user groups, a
 * bot, a profile field, an upload, bot storage, push devices, a linked Zoom account — and a spare
 * of each thing an example consumes.
 */
async function makeWorld(): Promise<{
  caller: TestUser;
  world: Record<string, unknown>;
  settings: Record<string, Setting>;
}> {
  const people = await makePeople();
  const { ada, grace, alan } = people;
  const byAda = callsAs(ada);
  const { design, oldWebsite, queues, messages } = await makeConversation(people);
  const [message, another, doomed] = messages as [number, number, number];
  const tomorrow = Math.ceil(Date.now() / 1000) + 86_400;
  const make = makers(byAda, design, tomorrow);
  const field = await make.field();
  await byAda('PUT', '/bot_storage', { storage: { last_deploy: '"v2.4.0"', deploys_today: '2' } });
  const tokens = await registerDevices(byAda);
  // Ada's Zoom account is linked, as a browser would link it.
  const linked = await zoomReturn(ada);
  expect(
    (await fetch(`${stack.chatUrl}/api/v1/calls/zoom/complete?${new URLSearchParams(linked)}`)).status,
  ).toBe(200);
  return {
    caller: ada,
    world: {
      queue_id: queues[0],
      message_id: message,
      stream_id: design,
      user_id: grace.id,
      user: String(grace.id),
      user_id_or_email: String(grace.id),
      muted_user_id: alan.id,
      draft_id: await make.draft(),
      saved_snippet_id: await make.snippet(),
      scheduled_message_id: await make.scheduled(),
      scheduled_delivery_timestamp: tomorrow,
      filter_id: await make.linkifier('ISSUE-(?P<id>[0-9]+)'),
      user_group_id: await make.group('designers', [ada.id, grace.id]),
      bot_id: await make.bot('CI'),
      username: ada.email,
      password: ada.password,
    },
    settings: {
      checkMessagesMatchNarrow: { values: { msg_ids: [message, another] } },
      deleteMessage: { values: { message_id: doomed } },
      updateMessageFlags: { values: { messages: [message, another] } },
      deleteQueue: { values: { queue_id: queues[1] } },
      updateSubscriptionProperties: {
        values: {
          subscription_data: [
            { stream_id: design, property: 'pin_to_top', value: true },
            { stream_id: design, property: 'color', value: '#f5ce6e' },
          ],
        },
      },
      archiveStream: { values: { stream_id: oldWebsite } },
      deactivateOwnUser: { caller: people.leaver },
      deactivateUser: { values: { user: people.leaving.id } },
      reactivateUser: { values: { user_id: people.gone.id } },
      createDrafts: { values: { drafts: [{ ...DRAFT, to: [design] }] } },
      editDraft: { values: { draft: { ...DRAFT, to: [design], content: 'Can we move it to Friday?' } } },
      deleteDraft: { values: { draft_id: await make.draft() } },
      deleteSavedSnippet: { values: { saved_snippet_id: await make.snippet() } },
      createScheduledMessage: { values: { to: design } },
      deleteScheduledMessage: { values: { scheduled_message_id: await make.scheduled() } },
      removeLinkifier: { values: { filter_id: await make.linkifier('TICKET-(?P<id>[0-9]+)') } },
      // Every linkifier there is when it runs, in reverse.
      reorderLinkifiers: {
        values: async () => ({
          ordered_linkifier_ids: ((await byAda('GET', '/realm/linkifiers')).linkifiers as { id: number }[])
            .map((linkifier) => linkifier.id)
            .reverse(),
        }),
      },
      completeZoomAuthorization: { values: () => zoomReturn(ada) },
      // The fields of a call link, as GET /calls/bigbluebutton/create signs them.
      joinBigBlueButtonCall: {
        values: async () => {
          const link = await byAda('GET', '/calls/bigbluebutton/create', { meeting_name: 'Design review' });
          return Object.fromEntries(new URL(String(link.url), stack.chatUrl).searchParams);
        },
      },
      createUserGroup: { values: { members: [ada.id, grace.id] } },
      updateUserGroupMembers: { values: { add: [alan.id] } },
      updateUserGroupSubgroups: { values: { add: [await make.group('reviewers', [alan.id])] } },
      deactivateUserGroup: { values: { user_group_id: await make.group('former interns', [grace.id]) } },
      deactivateBot: { values: { bot_id: await make.bot('Retired') } },
      updateProfileData: { values: { data: [{ id: field, value: '+1-555-0142' }] } },
      deleteProfileData: { values: { data: [field] } },
      removeApnsDeviceToken: { values: { token: tokens.apns[0] } },
      removeIosDeviceToken: { values: { token: tokens.apns[1] } },
      removeAndroidGcmRegId: { values: { token: tokens.fcm[0] } },
      removeAndroidRegId: { values: { token: tokens.fcm[1] } },
      sendTestNotification: { values: { token: tokens.fcm[2] } },
      removeAttachment: { values: { attachment_id: await upload(ada) } },
    },
  };
}

/** Where Zoom sends the user's browser back after GET /calls/zoom/register: its code and state. */
async function zoomReturn(user: TestUser): Promise<Record<string, string>> {
  const next = async (url: string, headers: Record<string, string> = {}) => {
    const answer = await fetch(url, { headers, redirect: 'manual' });
    await answer.arrayBuffer();
    expect(answer.status).toBe(302);
    return new URL(answer.headers.get('location')!, url);
  };
  const back = await next(
    await next(`${stack.chatUrl}/api/v1/calls/zoom/register`, { authorization: basic(user) }).then(String),
  );
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
}

const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.email}:${user.apiKey}`).toString('base64')}`;

function examplesOf(document: Document): Example[] {
  return Object.entries(document.paths)
    .filter(([route]) => route.startsWith('/api/v1/'))
    .flatMap(([route, item]) =>
      METHODS.flatMap((method) => {
        const operation = item[method];
        if (!operation) return [];
        const parameters = operation.parameters ?? [];
        const valueOf = (parameter: Parameter) =>
          parameter.example ?? parameter.content?.['application/json']?.example;
        const shown = (where: Parameter['in']) =>
          Object.fromEntries(
            parameters
              .filter((p) => p.in === where && valueOf(p) !== undefined)
              .map((p) => [p.name, valueOf(p)]),
          );
        const media = operation.requestBody?.content;
        const form = media?.['application/x-www-form-urlencoded'] ?? media?.['multipart/form-data'];
        const params = { ...shown('query'), ...form?.example };
        const path = shown('path');
        const unshown = [
          ...parameters.filter((p) => p.required).map((p) => p.name),
          ...(form?.schema?.required ?? []).filter((name) => name !== 'file'),
        ].filter((name) => !(name in path) && !(name in params));
        return [
          {
            method,
            route,
            operation,
            path,
            params,
            response: operation.responses['200']?.content?.['application/json']?.example,
            location: operation.responses['302']?.headers?.Location?.example,
            redirects: operation.responses['302'] !== undefined,
            takesFile: media !== undefined && !media['application/x-www-form-urlencoded'],
            unshown,
          },
        ];
      }),
    );
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  location?: string | null;
}

/** The example's call with the world's ids in place of the example's. */
async function makeCall(example: Example): Promise<Answer> {
  const setting = settings[example.operation.operationId] ?? {};
  const own = typeof setting.values === 'function' ? await setting.values() : setting.values;
  const values: Record<string, unknown> = { ...world, ...own };
  const user = setting.caller ?? caller;
  const route = example.route
    .replace(/^\/api\/v1/, '')
    .replace(/\{([^}]+)\}/g, (_, name: string) => String(values[name] ?? example.path[name]));
  const params = Object.fromEntries(
    Object.entries(example.params).map(([name, value]) => [name, name in values ? values[name] : value]),
  );
  if (example.redirects) return followOnce(example, route, params, user);
  if (!example.takesFile) {
    const method = example.method.toUpperCase() as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    return call(stack.chatUrl, method, route, user, params);
  }
  const form = new FormData();
  for (const [name, value] of Object.entries(params))
    form.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  form.set('file', new Blob(['%PDF-1.4\n'], { type: 'application/pdf' }), 'plan.pdf');
  const url = `${stack.chatUrl}/api/v1${route}`;
  const answer = await fetch(url, {
    method: example.method.toUpperCase(),
    headers: { authorization: basic(user) },
    body: form,
  });
  const body = (await answer.json()) as Record<string, unknown>;
  expectDocumentedAnswer(await servedContract(stack.chatUrl), example.method, url, {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    body,
  });
  return { status: answer.status, body };
}

/** A call a browser would make (a GET with its query), answered with where it is sent next. */
async function followOnce(
  example: Example,
  route: string,
  params: Record<string, unknown>,
  user: TestUser,
): Promise<Answer> {
  const query = new URLSearchParams(
    Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]),
  );
  const url = `${stack.chatUrl}/api/v1${route}${query.size ? `?${query}` : ''}`;
  const answer = await fetch(url, { headers: { authorization: basic(user) }, redirect: 'manual' });
  const text = await answer.text();
  const body = answer.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  expectDocumentedAnswer(await servedContract(stack.chatUrl), example.method, url, {
    status: answer.status,
    contentType: answer.headers.get('content-type'),
    body,
  });
  return { status: answer.status, body, location: answer.headers.get('location') };
}

/** The names of a URL's query parameters, sorted. */
const queryNames = (url: string) => [...new URL(url, 'http://example.com').searchParams.keys()].sort();

/** What is wrong with one example made live, or nothing. */
async function fault(example: Example): Promise<string | undefined> {
  let live: Answer;
  try {
    live = await makeCall(example);
  } catch (error) {
    return (error as Error).message;
  }
  const expected = example.redirects ? 302 : 200;
  if (live.status !== expected) return `answered ${live.status}: ${JSON.stringify(live.body)}`;
  if (example.redirects) {
    // The example's Location has the query fields of the live one.
    if (!live.location || !example.location)
      return `answered 302 to ${live.location}, shows ${example.location}`;
    const [shown, given] = [queryNames(example.location), queryNames(live.location)];
    return JSON.stringify(shown) === JSON.stringify(given)
      ? undefined
      : `its Location has the query fields ${shown.join(', ')}; the live one ${live.location}`;
  }
  if (!example.response) return undefined;
  try {
    // The example answer is one the document allows …
    expectDocumentedAnswer(
      await servedContract(stack.chatUrl),
      example.method,
      `${stack.chatUrl}${example.route}`,
      {
        status: 200,
        contentType: 'application/json',
        body: example.response,
      },
    );
  } catch (error) {
    return `its answer: ${(error as Error).message}`;
  }
  // … with the fields the live one has.
  const shown = Object.keys(example.response).sort();
  const given = Object.keys(live.body).sort();
  if (JSON.stringify(shown) !== JSON.stringify(given))
    return `its answer has the fields ${shown.join(', ')}; the live one ${given.join(', ')}: ${JSON.stringify(live.body).slice(0, 2000)}`;
  return undefined;
}

const servedDocument = async () => (await (await fetch(`${stack.chatUrl}/openapi.json`)).json()) as Document;

describe('the examples of the messaging API reference', () => {
  it('show a request and an answer for every operation', async () => {
    const without = examplesOf(await servedDocument())
      .map((example) => ({ ...example, answer: example.response ?? example.location }))
      .filter(({ answer, unshown }) => !answer || unshown.length > 0)
      .map(
        ({ operation, answer, unshown }) =>
          `${operation.operationId}${answer ? '' : ' (no answer)'}${unshown.length ? ` (no ${unshown.join(', ')})` : ''}`,
      );
    expect(without).toEqual([]);
  });

  it('are answered by the live API as they say', async () => {
    const faults: string[] = [];
    for (const example of examplesOf(await servedDocument())) {
      // One without an answer is reported by the test above.
      if (!example.response && !example.location) continue;
      const found = await fault(example);
      if (found) faults.push(`${example.operation.operationId}: ${found}`);
    }
    expect(faults).toEqual([]);
  });
});

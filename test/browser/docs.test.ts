import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makeOrganization, makeUser } from '@muse/test-support/chat';
import { createTestUser } from '../support/content.ts';
import { startTestStack, type TestStack } from '../support/stack.ts';

/**
 * /docs of both APIs in a real headless Chromium (Debian's `chromium`, or CHROMIUM_PATH): the page
 * renders the served document with no console error, lists every operation, the request it
 * builds for a signed-in reader carries the API's auth scheme, and "Try it out" → "Execute" on a
 * few operations sends their example (a form body: its fields and nothing else) and is answered
 * 2xx. Screenshots go to MUSE_ARTIFACTS_DIR (default .ci/artifacts/), kept by CI.
 */
const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const artifacts = path.resolve(process.env.MUSE_ARTIFACTS_DIR ?? '.ci/artifacts');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let stack: TestStack;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  stack = await startTestStack();
  await makeOrganization(stack);
  mkdirSync(artifacts, { recursive: true });
  profile = mkdtempSync(path.join(os.tmpdir(), 'muse-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await stack?.stop();
});

/** Opens /docs, recording what the console and the network say, and waits for the operations. */
async function openDocs(baseUrl: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('request', (request) => {
    if (!request.url().startsWith(baseUrl)) problems.push(`left the server: ${request.url()}`);
  });
  await page.goto(`${baseUrl}/docs`);
  // Generous: Swagger UI lays out hundreds of operations, slowly on a busy machine.
  await page.locator('.opblock').first().waitFor({ timeout: 120_000 });
  return { page, problems };
}

async function operationsOf(baseUrl: string): Promise<string[]> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([route, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.includes(method))
      .map((method) => `${method.toUpperCase()} ${route}`),
  );
}

/** Signs in through the Authorize dialog. */
async function authorize(page: Page, fill: (dialog: Page) => Promise<void>): Promise<void> {
  await page.locator('.auth-wrapper .btn.authorize').click();
  await fill(page);
  await page.locator('.modal-ux .auth-btn-wrapper .btn.authorize').click();
  await page.locator('.modal-ux .btn-done').click();
}

/** Signs in through the Authorize dialog, then runs GET /api/v1/users/me; answers its curl line. */
async function exampleRequest(page: Page, fill: (dialog: Page) => Promise<void>): Promise<string> {
  await authorize(page, fill);
  const operation = page.locator('.opblock.opblock-get', {
    has: page.locator('.opblock-summary-path[data-path="/api/v1/users/me"]'),
  });
  await operation.locator('.opblock-summary').first().click();
  await operation.locator('.btn.execute').click();
  const curl = operation.locator('.curl-command');
  await curl.waitFor();
  return (await curl.textContent()) ?? '';
}

/** The example of an operation's request body, as its document gives it. */
async function requestExample(
  baseUrl: string,
  method: string,
  route: string,
): Promise<Record<string, unknown>> {
  const document = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { requestBody: { content: Record<string, { example: object }> } }>>;
  };
  const content = document.paths[route]![method]!.requestBody.content;
  return Object.values(content)[0]!.example as Record<string, unknown>;
}

/**
 * Opens one operation, fills its path parameters, presses Execute, and answers the request the
 * page sent (its body) and the status of the answer.
 */
async function tryItOut(
  page: Page,
  method: string,
  route: string,
  pathParameters: Record<string, string> = {},
): Promise<{ body: string; status: number }> {
  const operation = page.locator(`.opblock.opblock-${method}`, {
    has: page.locator(`.opblock-summary-path[data-path="${route}"]`),
  });
  await operation.locator('.opblock-summary').first().click();
  for (const [name, value] of Object.entries(pathParameters))
    await operation.locator(`tr[data-param-name="${name}"] input`).fill(value);
  let sentPath = route;
  for (const [name, value] of Object.entries(pathParameters)) sentPath = sentPath.replace(`{${name}}`, value);
  const [request] = await Promise.all([
    page.waitForRequest(
      (sent) => sent.method() === method.toUpperCase() && new URL(sent.url()).pathname === sentPath,
    ),
    operation.locator('.btn.execute').click(),
  ]);
  const answer = await request.response();
  await operation.locator('.opblock-summary').first().click();
  return { body: request.postData() ?? '', status: answer?.status() ?? 0 };
}

/** A form body as field → value. */
const formFields = (body: string) => Object.fromEntries(new URLSearchParams(body));
/** The example's fields as a form carries them: text as it is, anything else as JSON. */
const asForm = (example: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(example).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );

describe('/docs, the API reference pages, in headless Chromium', () => {
  it("content API: /docs links to the AsyncAPI page, which renders the conversation channel's every operation and message", async () => {
    const { page, problems } = await openDocs(stack.contentUrl);
    await page.locator('#asyncapi-link').click();
    await page.waitForURL(`${stack.contentUrl}/docs/asyncapi`);
    const document = (await (await fetch(`${stack.contentUrl}/asyncapi.json`)).json()) as {
      info: { title: string };
      channels: Record<string, { address: string }>;
      operations: Record<string, unknown>;
      components: { messages: Record<string, { name?: string }> };
    };
    // The renderer draws once it has parsed the document; its title then shows.
    const rendered = page.locator('#asyncapi');
    await expect.poll(() => rendered.innerText(), { timeout: 120_000 }).toContain(document.info.title);
    const text = (await rendered.innerText()).toLowerCase();
    for (const channel of Object.values(document.channels))
      expect(text).toContain(channel.address.toLowerCase());
    for (const operation of Object.keys(document.operations)) expect(text).toContain(operation.toLowerCase());
    for (const [key, message] of Object.entries(document.components.messages))
      expect(text).toContain((message.name ?? key).toLowerCase());
    await page.screenshot({ path: path.join(artifacts, 'docs-content-asyncapi.png'), fullPage: false });
    // The listeners of openDocs stay on the page: the AsyncAPI page too made no error and no outside request.
    expect(problems).toEqual([]);
  });

  it('content API: every operation listed, no console error, the example request sends the bearer token', async () => {
    const { page, problems } = await openDocs(stack.contentUrl);
    const operations = await operationsOf(stack.contentUrl);
    expect(await page.locator('.opblock').count()).toBe(operations.length);
    await page.screenshot({ path: path.join(artifacts, 'docs-content.png') });

    const user = await createTestUser(stack);
    const curl = await exampleRequest(page, async () => {
      await page.locator('.modal-ux .auth-container input').first().fill(user.token);
    });
    expect(curl).toContain(`Authorization: Bearer ${user.token}`);
    await expect
      .poll(() => page.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');
    await page.screenshot({ path: path.join(artifacts, 'docs-content-request.png') });
    expect(problems).toEqual([]);
  });

  it('messaging API: every operation listed, no console error, the example request sends HTTP Basic', async () => {
    const owner = await makeUser(stack, { role: 100 });
    const { page, problems } = await openDocs(stack.chatUrl);
    const operations = await operationsOf(stack.chatUrl);
    expect(await page.locator('.opblock').count()).toBe(operations.length);
    await page.screenshot({ path: path.join(artifacts, 'docs-chat.png') });

    const curl = await exampleRequest(page, async () => {
      await page.locator('.modal-ux .auth-container input[type=text]').first().fill(owner.email);
      await page.locator('.modal-ux .auth-container input[type=password]').first().fill(owner.apiKey);
    });
    const basic = Buffer.from(`${owner.email}:${owner.apiKey}`).toString('base64');
    expect(curl).toContain(`Authorization: Basic ${basic}`);
    await expect
      .poll(() => page.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toContain('200');
    await page.screenshot({ path: path.join(artifacts, 'docs-chat-request.png') });

    // "Try it out" on sending a message starts from the declared example, shown with its answer.
    const send = page.locator('.opblock.opblock-post', {
      has: page.locator('.opblock-summary-path[data-path="/api/v1/messages"]'),
    });
    await send.locator('.opblock-summary').first().click();
    // Try it out is on from the start (tryItOutEnabled).
    const to = send.locator('tr[data-property-name="to"] input');
    await expect.poll(() => to.inputValue()).toBe('design');
    // The optional topic too, from the example rather than its `default: ''`, and sent only as filled.
    const topic = send.locator('tr[data-property-name="topic"]');
    await expect.poll(() => topic.locator('input:not([type=checkbox])').inputValue()).toBe('launch plan');
    expect(await topic.locator('input[type=checkbox]').isChecked()).toBe(false);
    await expect.poll(() => send.locator('.responses-wrapper').innerText()).toContain('"id": 42');
    await send.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifacts, 'docs-chat-example.png') });
    expect(problems).toEqual([]);
  });

  it('"Try it out" sends the example of a JSON body as it is, and the API accepts it', async () => {
    const user = await createTestUser(stack, { balance: 1000 });
    const { page, problems } = await openDocs(stack.contentUrl);
    await authorize(page, async () => {
      await page.locator('.modal-ux .auth-container input').first().fill(user.token);
    });
    const route = '/api/v1/generations/texts';
    const sent = await tryItOut(page, 'post', route);
    expect(JSON.parse(sent.body)).toEqual(await requestExample(stack.contentUrl, 'post', route));
    expect(sent.status).toBeGreaterThanOrEqual(200);
    expect(sent.status).toBeLessThan(300);
    expect(problems).toEqual([]);
  });

  it('"Try it out" sends the fields of a form body\'s example and nothing else, and the API accepts them', async () => {
    const owner = await makeUser(stack, { role: 100 });
    // The examples name a channel "design" the caller can post to and administer.
    await call(stack.chatUrl, 'POST', '/users/me/subscriptions', owner, {
      subscriptions: [{ name: 'design' }],
    });
    const lookup = await call(stack.chatUrl, 'GET', '/get_stream_id', owner, { stream: 'design' });
    const streamId = String(lookup.body.stream_id);
    const { page, problems } = await openDocs(stack.chatUrl);
    await authorize(page, async () => {
      await page.locator('.modal-ux .auth-container input[type=text]').first().fill(owner.email);
      await page.locator('.modal-ux .auth-container input[type=password]').first().fill(owner.apiKey);
    });

    const tried: [method: string, route: string, pathParameters?: Record<string, string>][] = [
      ['post', '/api/v1/messages'],
      ['patch', '/api/v1/streams/{stream_id}', { stream_id: streamId }],
      ['patch', '/api/v1/settings'],
      ['post', '/api/v1/users/me/subscriptions'],
    ];
    const sent = [];
    const wanted = [];
    for (const [method, route, pathParameters] of tried) {
      const { body, status } = await tryItOut(page, method, route, pathParameters);
      sent.push({ route, fields: formFields(body), status });
      wanted.push({ route, fields: asForm(await requestExample(stack.chatUrl, method, route)), status: 200 });
    }
    // All at once: a failure shows every operation's difference.
    expect(sent).toEqual(wanted);
    expect(problems).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../../test/support/stack.ts';
import { call, makeOrganization, makeUser } from './support.ts';

/** Regression tests of the messaging API's security findings (issue 14). */
describe('messaging API hardening', () => {
  let stack: TestStack;
  let addressCounter = 0;
  const fromAddress = () => ({
    'x-forwarded-for': `10.9.${Math.floor(addressCounter / 250)}.${addressCounter++ % 250}`,
  });
  beforeAll(async () => {
    stack = await startTestStack({
      MUSE_CHAT_AUTH_ATTEMPTS: '3',
      MUSE_CHAT_AUTH_ADDRESS_ATTEMPTS: '6',
      MUSE_TRUST_PROXY: 'loopback',
    });
    await makeOrganization(stack);
  });
  afterAll(() => stack.stop());

  const guess = (username: string, password: string, headers = fromAddress()) =>
    call(stack.chatUrl, 'POST', '/fetch_api_key', null, { username, password }, headers);

  it('fetch_api_key: every spelling of an account shares one limit (user03@ is user 3)', async () => {
    const user = await makeUser(stack);
    for (let i = 0; i < 3; i++) expect((await guess(`user${user.id}@localhost`, 'nope')).status).toBe(401);
    const padded = await guess(`user${String(user.id).padStart(6, '0')}@localhost`, user.password);
    expect(padded.status).toBe(429);
    expect((await guess(user.email.toUpperCase(), user.password)).status).toBe(429);
  });

  it('fetch_api_key: parallel guesses are counted before the password is checked', async () => {
    const user = await makeUser(stack);
    const answers = await Promise.all(Array.from({ length: 60 }, () => guess(user.email, 'nope')));
    const checked = answers.filter((a) => a.status === 401).length;
    expect(checked).toBeLessThanOrEqual(3);
    expect(answers.filter((a) => a.status === 429).length).toBe(60 - checked);
  });

  it('fetch_api_key: one address trying many accounts is limited too', async () => {
    const address = fromAddress();
    const users = await Promise.all(Array.from({ length: 7 }, () => makeUser(stack)));
    for (const user of users.slice(0, 6)) expect((await guess(user.email, 'nope', address)).status).toBe(401);
    expect((await guess(users[6]!.email, users[6]!.password, address)).status).toBe(429);
    expect((await guess(users[6]!.email, users[6]!.password)).status).toBe(200);
  });

  it('fetch_api_key: a right password does not use up the attempts', async () => {
    const user = await makeUser(stack);
    const address = fromAddress();
    for (let i = 0; i < 8; i++) expect((await guess(user.email, user.password, address)).status).toBe(200);
  });
});

import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { createTestUser, type TestUser } from '@muse/test-support/content';
import { developmentDouble, outTradeNo, paymentSuite } from '@muse/test-support/payments';
import { startFakeWechatPay } from '@muse/test-support/fakes/wechat-pay';
import { startFakeAlipay } from '@muse/test-support/fakes/alipay';
import { ledger } from '@muse/content-api';
import { runCli } from '../src/index.ts';
import { fakeTerminal, muse, tempConfigHome } from './support/terminal.ts';

/** `muse credits buy`, `muse payments`, `muse bundles`, in process against the real stack. */
describe('credits, payments and bundles', { timeout: 120_000 }, () => {
  const suite = paymentSuite(developmentDouble, { configure: false });
  const as = (user: TestUser) => ({
    XDG_CONFIG_HOME: tempConfigHome(),
    MUSE_CONTENT_URL: suite.stack.contentUrl,
    MUSE_TOKEN: user.token,
  });
  const development = () => suite.kit.configure({ provider: 'development', enabled: true });
  async function json(args: string[], env: Record<string, string>) {
    const result = await muse([...args, '-o', 'json'], { env });
    expect(result, result.stderr).toMatchObject({ code: 0 });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test reads answers field by field
    return JSON.parse(result.stdout) as any;
  }

  /** Starts `muse args` in process; resolves the running command once stderr shows `text`. */
  async function startBuy(args: string[], env: Record<string, string>, text = 'waiting for the payment') {
    const terminal = fakeTerminal({ env });
    const running = runCli(args, terminal.factory);
    await expect.poll(() => terminal.stderr(), { timeout: 30_000 }).toContain(text);
    return { terminal, running };
  }

  it('buys a bundle by name: QR code and link, progress, then the new balance', async () => {
    await development();
    const user = await createTestUser(suite.stack);
    const name = `Pack ${crypto.randomUUID().slice(0, 8)}`;
    await suite.kit.createBundle({ name, credits: 300, price_cents: 2990 });
    const { terminal, running } = await startBuy(['credits', 'buy', name, '--provider', 'dev'], as(user));
    const link = payLink(terminal.stderr());
    // The QR code shown is the order's code_url as the qrcode library renders it (no colours here).
    expect(terminal.stderr()).toContain(await QRCode.toString(link, { type: 'utf8' }));
    expect(terminal.stderr()).toContain('waiting for the payment: pending');
    expect(await suite.provider.pay(link)).toBe(200);
    expect(await running, terminal.stderr()).toBe(0);
    expect(terminal.stderr()).toContain('✓ Paid 29.90 CNY: +300 credits');
    expect(terminal.stdout()).toMatch(/^status +paid$/m);
    expect(terminal.stdout()).toMatch(/^balance +300$/m);
  });

  it('-o json ends with {payment, balance}; --no-wait prints the open order', async () => {
    await development();
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 40 });
    const { terminal, running } = await startBuy(['credits', 'buy', bundle.id, '-o', 'json'], as(user));
    await suite.provider.pay(payLink(terminal.stderr()));
    expect(await running, terminal.stderr()).toBe(0);
    expect(JSON.parse(terminal.stdout())).toMatchObject({
      payment: { status: 'paid', credits: 40 },
      balance: 40,
    });

    const open = await json(['credits', 'buy', bundle.id, '--no-wait', '--idempotency-key', 'k1'], as(user));
    expect(open).toMatchObject({ status: 'pending', bundle_id: bundle.id });
    expect(open.code_url).toContain('/api/v1/payment-notifications/development?');
    const again = await json(['credits', 'buy', bundle.id, '--no-wait', '--idempotency-key', 'k1'], as(user));
    expect(again.id).toBe(open.id);
  });

  it('says what to do when no provider is configured, the bundle is unknown or not on sale, or the wait times out', async () => {
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle();
    await suite.kit.configure({ provider: 'none' });
    const none = await muse(['credits', 'buy', bundle.id], { env: as(user) });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^muse: No payment provider is configured.*; an administrator sets up a provider with muse payment-api set/,
    );

    await development();
    expect(await muse(['credits', 'buy', 'No Such Pack'], { env: as(user) })).toMatchObject({
      code: 4,
      stderr: 'muse: no bundle named "No Such Pack"; see muse bundles list\n',
    });
    const unknown = await muse(['credits', 'buy', crypto.randomUUID()], { env: as(user) });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('pick a bundle on sale with muse bundles list');
    const inactive = await suite.kit.createBundle({ is_active: false });
    const off = await muse(['credits', 'buy', inactive.id], { env: as(user) });
    expect(off).toMatchObject({ code: 1 });
    expect(off.stderr).toContain('This bundle is not on sale; pick a bundle on sale');
    const wrong = await muse(['credits', 'buy', bundle.id, '--provider', 'alipay'], { env: as(user) });
    expect(wrong.stderr).toContain('Orders are paid with development here, not alipay');

    const late = await muse(['credits', 'buy', bundle.id, '--timeout', '1', '-o', 'json'], { env: as(user) });
    expect(late.code).toBe(1);
    // The QR code and the progress come first on stderr; the error is its last line.
    const error = JSON.parse(late.stderr.trimEnd().split('\n').at(-1)!).error;
    expect(error).toMatchObject({ code: 'timeout', message: 'the payment is still pending after waiting' });
    expect(error.hint).toMatch(
      /^if you paid, the credits arrive once the provider confirms; see it with muse payments get [0-9a-f-]{36}$/,
    );
  });

  it('payments list, get and refund (partial, refused without --force, forced)', async () => {
    await development();
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 100, price_cents: 1000 });
    const order = (await suite.kit.order(user, { bundle_id: bundle.id })).body;
    await suite.provider.pay(order.code_url);
    const admin = as(suite.admin);
    expect((await json(['payments', 'list'], as(user))).map((p: { id: string }) => p.id)).toEqual([order.id]);
    const paid = await json(['payments', 'list', '--scope', 'all', '--status', 'paid', '--all'], admin);
    expect(paid.map((p: { id: string }) => p.id)).toContain(order.id);
    const table = await muse(['payments', 'list'], { env: as(user) });
    expect(table.stdout).toMatch(new RegExp(`^${order.id} .* paid +development +10\\.00 CNY +100 *$`, 'm'));
    expect(await json(['payments', 'get', order.id], as(user))).toMatchObject({
      id: order.id,
      status: 'paid',
    });

    expect((await muse(['payments', 'refund', order.id], { env: as(user) })).code).toBe(1);
    const partial = await muse(
      ['payments', 'refund', order.id, '--amount-cents', '300', '--reason', 'asked'],
      {
        env: admin,
      },
    );
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stderr).toContain('✓ Refunded 3.00 CNY of 10.00 CNY so far; 30 credits taken back');
    // The user spends 60 of the 70 credits left.
    await suite.stack.database.db.transaction((transaction) =>
      ledger.postEntry(suite.stack.database.db, transaction, {
        userId: user.id,
        amount: -60,
        kind: 'adjustment',
        reference: `spent:${order.id}`,
      }),
    );
    const refused = await muse(['payments', 'refund', order.id], { env: admin });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^muse: The refund takes back 70 credits and the balance is 10.*; the user has spent the credits; add --force/,
    );
    const forced = await json(['payments', 'refund', order.id, '--force'], admin);
    expect(forced).toMatchObject({ status: 'refunded', refunded_cents: 1000, refunded_credits: 40 });
  });

  it('bundles add, list and update (administrators)', async () => {
    const admin = as(suite.admin);
    const name = `Big ${crypto.randomUUID().slice(0, 8)}`;
    const added = await json(
      ['bundles', 'add', '--name', name, '--credits', '1000', '--price-cents', '8800', '--draft'],
      admin,
    );
    expect(added).toMatchObject({
      name,
      credits: 1000,
      price_cents: 8800,
      currency: 'CNY',
      visibility: 'private',
      is_active: true,
    });
    const user = await createTestUser(suite.stack);
    expect(
      (await json(['bundles', 'list', '--all'], as(user))).map((b: { id: string }) => b.id),
    ).not.toContain(added.id);
    const updated = await json(['bundles', 'update', name, '--publish', '--price-cents', '9900'], admin);
    expect(updated).toMatchObject({ id: added.id, visibility: 'public', price_cents: 9900 });
    const listed = await muse(['bundles', 'list', '--all'], { env: as(user) });
    expect(listed.stdout).toMatch(new RegExp(`^${added.id} +${name} +1000 +99\\.00 CNY +yes$`, 'm'));
    expect(await json(['bundles', 'update', added.id, '--deactivate'], admin)).toMatchObject({
      is_active: false,
    });
    expect((await muse(['bundles', 'update', name], { env: admin })).code).toBe(2);
    expect(
      (
        await muse(['bundles', 'add', '--name', 'x', '--credits', '5', '--price-cents', '100'], {
          env: as(user),
        })
      ).code,
    ).toBe(1);
  });
});

describe('credits buy with WeChat Pay and Alipay (fakes)', { timeout: 120_000 }, () => {
  const suite = paymentSuite(startFakeWechatPay);

  it('shows the WeChat Pay QR code and ends once the notification credits', async () => {
    const user = await createTestUser(suite.stack);
    const bundle = await suite.kit.createBundle({ credits: 60, price_cents: 600 });
    const terminal = fakeTerminal({
      env: {
        XDG_CONFIG_HOME: tempConfigHome(),
        MUSE_CONTENT_URL: suite.stack.contentUrl,
        MUSE_TOKEN: user.token,
      },
    });
    const running = runCli(['credits', 'buy', bundle.id, '--provider', 'wechat'], terminal.factory);
    await expect.poll(() => terminal.stderr(), { timeout: 30_000 }).toContain('waiting for the payment');
    const [entry] = [...suite.provider.orders].filter(
      ([, order]) => order.total === 600 && order.trade_state === 'NOTPAY',
    );
    const [no, placed] = entry!;
    expect(terminal.stderr()).toContain(
      await QRCode.toString(`weixin://wxpay/bizpayurl?pr=${no.slice(0, 8)}`, { type: 'utf8' }),
    );
    expect(terminal.stderr()).not.toContain('Or open:');
    suite.provider.pay(placed.out_trade_no);
    expect((await suite.provider.send(suite.provider.notification(placed.out_trade_no))).status).toBe(204);
    expect(await running, terminal.stderr()).toBe(0);
    expect(terminal.stdout()).toMatch(/^balance +60$/m);
  });

  it('shows the Alipay QR code and page link', async () => {
    const alipay = await startFakeAlipay();
    try {
      await suite.kit.configure(alipay.settings());
      const user = await createTestUser(suite.stack);
      const bundle = await suite.kit.createBundle({ credits: 70 });
      const env = {
        XDG_CONFIG_HOME: tempConfigHome(),
        MUSE_CONTENT_URL: suite.stack.contentUrl,
        MUSE_TOKEN: user.token,
      };
      const terminal = fakeTerminal({ env });
      const running = runCli(['credits', 'buy', bundle.id, '--provider', 'alipay'], terminal.factory);
      await expect.poll(() => terminal.stderr(), { timeout: 30_000 }).toContain('Or open: ');
      expect(payLink(terminal.stderr())).toMatch(new RegExp(`^${alipay.url}\\?`));
      const id = (await suite.kit.api('GET', '/api/v1/payments', user)).body[0].id as string;
      alipay.pay(outTradeNo(id));
      expect(await alipay.send(alipay.notification(outTradeNo(id)))).toEqual({
        status: 200,
        body: 'success',
      });
      expect(await running, terminal.stderr()).toBe(0);
      expect(terminal.stdout()).toMatch(/^balance +70$/m);
    } finally {
      await alipay.close();
    }
  });
});

const payLink = (stderr: string) => /Or open: (\S+)/.exec(stderr)![1]!;

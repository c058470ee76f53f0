import { Command, Option } from 'commander';
import QRCode from 'qrcode';
import {
  ApiError,
  PaymentNotPaidError,
  PaymentTimeoutError,
  type Payment,
  type PaymentProvider,
} from '@muse/sdk';
import type { Factory } from '../../factory.ts';
import { CliError, ExitCode } from '../../errors.ts';
import { positiveInteger } from '../shared/lists.ts';
import { bundleId } from '../bundles/shared.ts';
import { money } from '../payments/shared.ts';

/** The names `--provider` takes, short as people say them. */
const PROVIDERS = { wechat: 'wechat_pay', alipay: 'alipay', dev: 'development' } as const satisfies Record<
  string,
  PaymentProvider
>;

export interface BuyOptions {
  bundle: string;
  provider?: keyof typeof PROVIDERS;
  /** Seconds to wait for the payment (default: until the order expires, and a minute more). */
  timeout?: number;
  wait: boolean;
  idempotencyKey?: string;
}

/**
 * Opens an order for a bundle, shows how to pay it (the QR code in the terminal, the page's
 * address), then waits until the provider confirms it and ends with the new balance. The QR code
 * and progress go to stderr; stdout gets the result (with `-o json`, `{payment, balance}`).
 */
export async function run(options: BuyOptions, f: Factory): Promise<void> {
  const client = f.content();
  const id = await bundleId(f, options.bundle);
  const payment = await client.payments
    .create(id, {
      ...(options.provider ? { provider: PROVIDERS[options.provider] } : {}),
      ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}),
    })
    .catch((error: unknown) => {
      throw withOrderHint(error);
    });
  if (!options.wait) {
    f.printer().notice(`Order opened; follow it with: muse payments get ${payment.id}`);
    f.printer().record(payment);
    return;
  }
  await showHowToPay(payment, f);
  const paid = await waitForPayment(payment, options, f);
  const { data: me } = await client.GET('/api/v1/users/me');
  f.printer().success(`Paid ${money(paid.price_cents, paid.currency)}: +${paid.credits} credits`);
  if (f.printer().format === 'table')
    f.printer().record({ payment: paid.id, status: paid.status, credits: paid.credits, balance: me.balance });
  else f.printer().data({ payment: paid, balance: me.balance });
}

async function showHowToPay(payment: Payment, f: Factory): Promise<void> {
  const printer = f.printer();
  const what = `${payment.credits} credits for ${money(payment.price_cents, payment.currency)}`;
  printer.notice(`Order ${payment.id}: ${what} with ${payment.provider}`);
  if (payment.code_url) {
    // The terminal renderer paints its own light background (readable on dark terminals); without
    // colours, plain block characters, dark on light.
    const qr = await QRCode.toString(
      payment.code_url,
      printer.color ? { type: 'terminal', small: true } : { type: 'utf8' },
    );
    printer.notice(`Scan to pay:\n${qr}`);
  }
  if (payment.pay_url) printer.notice(`Or open: ${payment.pay_url}`);
}

async function waitForPayment(payment: Payment, options: BuyOptions, f: Factory): Promise<Payment> {
  const untilExpiry = payment.expires_at ? Date.parse(payment.expires_at) - f.now().getTime() : 0;
  const timeout = options.timeout !== undefined ? options.timeout * 1000 : Math.max(0, untilExpiry) + 60_000;
  const progress = f.progress();
  try {
    return await f.content().payments.waitFor(payment.id, {
      timeout,
      signal: f.interrupt,
      onProgress: (now) => progress.update(`waiting for the payment: ${now.status}`),
    });
  } catch (error) {
    throw waitError(error, payment, f);
  } finally {
    progress.done();
  }
}

function waitError(error: unknown, payment: Payment, f: Factory): unknown {
  const get = `muse payments get ${payment.id}`;
  if (f.interrupt.aborted)
    return new CliError('stopped waiting; the order stays open until it expires', {
      code: 'interrupted',
      hint: `paying it still credits you; see it with ${get}`,
    });
  if (error instanceof PaymentTimeoutError)
    return new CliError(`the payment is still ${error.payment.status} after waiting`, {
      code: 'timeout',
      hint: `if you paid, the credits arrive once the provider confirms; see it with ${get}`,
    });
  if (error instanceof PaymentNotPaidError)
    return new CliError(
      `the order was ${error.payment.status} unpaid: ${error.payment.failure_reason ?? ''}`,
      {
        code: 'not_paid',
        hint: 'nothing was credited; buy again with muse credits buy',
      },
    );
  return error;
}

/** The refusals of `POST /api/v1/payments`, with what to do about each. */
function withOrderHint(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const hint =
    error.status === 501
      ? 'an administrator sets up a provider with muse payment-api set provider=… enabled=true'
      : error.status === 404 || error.status === 409
        ? 'pick a bundle on sale with muse bundles list (and leave out --provider to use the configured one)'
        : error.status === 502
          ? 'try again in a moment'
          : undefined;
  if (!hint) return error;
  return new CliError(error.message, {
    code: error.code,
    status: error.status,
    exitCode: error.status === 404 ? ExitCode.notFound : ExitCode.error,
    hint,
  });
}

export function buyCommand(f: Factory): Command {
  return new Command('buy')
    .description(
      'Buy a credit bundle: shows the QR code to scan, waits for the payment, prints the new balance',
    )
    .argument('<bundle>', 'id or name (muse bundles list)')
    .addOption(
      new Option('--provider <provider>', 'pay with this provider (default: the configured one)').choices(
        Object.keys(PROVIDERS),
      ),
    )
    .option(
      '--timeout <seconds>',
      'stop waiting after this long (default: until the order expires)',
      positiveInteger,
    )
    .option('--no-wait', 'open the order, print it and return')
    .option('--idempotency-key <key>', 'repeat with the same key to get the same order back')
    .action((bundle: string, options: Omit<BuyOptions, 'bundle'>) => run({ ...options, bundle }, f));
}

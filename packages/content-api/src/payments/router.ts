import express, { Router, type Request, type Response } from 'express';
import { requestLog } from '@muse/core';
import type { ContentContext } from '../context.ts';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { requireAdmin, requirePermission } from '../auth/authenticate.ts';
import { createResourceKit } from '../resources/kit.ts';
import { payment } from '../resources/declarations/payment.ts';
import { linkOrigin } from '../http/link-origin.ts';
import { openOrder, type OrderBody } from './orders.ts';
import { receiveNotification } from './notifications.ts';
import { startPaymentWorkflow, startRefundWorkflow } from './reconcile.ts';
import type { PaymentRow } from './transitions.ts';
import { paymentStatistics, refundPayment, type RefundBody } from './refunds.ts';
import type { NotificationAnswer, ProviderName } from './providers/types.ts';

/**
 * `POST /api/v1/payments`: opens an order (201; 200 for a repeated Idempotency-Key);
 * administrators refund (`POST /api/v1/payments/{id}/refunds`) and read statistics.
 */
export function paymentsRoutes(context: ContentContext): Routes {
  const routes = new Routes();
  const kit = createResourceKit(context, payment);
  route(routes, 'post', '/api/v1/payments', async (req, res) => {
    const user = requirePermission(req, 'payment', 'create', 'own');
    const logger = requestLog(res, context.logger);
    const deps = {
      ...context,
      logger,
      notifyBase: linkOrigin(context.config.MUSE_PUBLIC_URL, req),
      // Without its workflow an order still settles by notification; it is then not closed at expiry.
      reconcile: (row: PaymentRow) =>
        startPaymentWorkflow(context, row.id).catch((error: unknown) =>
          logger.error({ err: error, paymentId: row.id }, 'could not start the payment workflow'),
        ),
    };
    const key = req.get('Idempotency-Key') || undefined;
    const { payment: row, created } = await openOrder(deps, user, req.body as OrderBody, key);
    res.status(created ? 201 : 200).json(kit.present(row as never) as never);
  });
  route(routes, 'post', '/api/v1/payments/{id}/refunds', async (req, res) => {
    const admin = requireAdmin(req);
    const logger = requestLog(res, context.logger);
    const deps = {
      ...context,
      logger,
      // Without its workflow a refund the provider did not answer stays pending until checked by hand.
      retry: (refundId: string) =>
        startRefundWorkflow(context, refundId).catch((error: unknown) =>
          logger.error({ err: error, refundId }, 'could not start the refund workflow'),
        ),
    };
    const row = await refundPayment(deps, admin, String(req.params.id), req.body as RefundBody);
    res.json(kit.present(row as never) as never);
  });
  route(routes, 'get', '/api/v1/payments/stats', async (req, res) => {
    requireAdmin(req);
    res.json(await paymentStatistics(context.db, req.query));
  });
  return routes;
}

/** Where the providers' notifications arrive: stable public paths below it. */
export const PAYMENT_NOTIFICATIONS = '/api/v1/payment-notifications';

/**
 * The providers' notifications, mounted at PAYMENT_NOTIFICATIONS before the JSON parser: a
 * signature covers the body's exact bytes, so the body is read raw and each adapter parses it.
 */
export function paymentNotificationsRouter(context: ContentContext): Router {
  const router = Router();
  const raw = express.raw({ type: () => true, limit: '64kb' });
  const receive = (provider: ProviderName) => async (req: Request, res: Response) => {
    const answer = await receiveNotification(
      { ...context, logger: requestLog(res, context.logger) },
      provider,
      {
        headers: req.headers,
        query: new URL(req.originalUrl, 'http://notification').searchParams,
        body: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
      },
    );
    send(res, answer);
  };
  router.get('/development', receive('development'));
  router.post('/wechat_pay', raw, receive('wechat_pay'));
  router.post('/alipay', raw, receive('alipay'));
  return router;
}

function send(res: Response, answer: NotificationAnswer): void {
  if (answer.status === 204) {
    res.status(204).end();
    return;
  }
  res.status(answer.status).type(answer.contentType).send(answer.body);
}

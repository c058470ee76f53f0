import express, { type Router } from 'express';
import { AppError } from '@muse/core';
import { asyncapiDocument } from './protocol.ts';

/** The channel's plain-HTTP side: its AsyncAPI document, and 426 for a GET that is not an upgrade. */
export function socketsRouter(): Router {
  const router = express.Router();
  router.get('/asyncapi.json', (_req, res) => {
    res.json(asyncapiDocument);
  });
  router.get('/api/v1/conversations/:conversation_id/ws', () => {
    throw new AppError(
      426,
      'upgrade_required',
      'This is a WebSocket endpoint: connect with a WebSocket client',
      {
        headers: { Upgrade: 'websocket' },
      },
    );
  });
  return router;
}

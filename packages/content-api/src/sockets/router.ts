import { AppError } from '@muse/core';
import { route } from '../http/contract.ts';
import { Routes } from '../http/routes.ts';
import { asyncapiDocument } from './protocol.ts';

/** The channel's plain-HTTP side: its AsyncAPI document, and 426 for a GET that is not an upgrade. */
export function socketsRoutes(): Routes {
  const routes = new Routes();
  route(routes, 'get', '/asyncapi.json', (_req, res) => {
    res.json(asyncapiDocument());
  });
  route(routes, 'get', '/api/v1/conversations/{conversation_id}/ws', () => {
    throw new AppError(
      426,
      'upgrade_required',
      'This is a WebSocket endpoint: connect with a WebSocket client',
      {
        headers: { Upgrade: 'websocket' },
      },
    );
  });
  return routes;
}

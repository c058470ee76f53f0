import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import type { ConversationMessage } from '../conversations/messages.ts';

/**
 * The channel's contract: `asyncapi/conversation.yaml`, with the message record taken from the
 * messages' OpenAPI declaration, `openapi/conversations.yaml` (one schema for REST and sockets).
 * It is served at /asyncapi.json, and client frames are validated against it before anything
 * else happens.
 */
function loadAsyncApiDocument(): WithSchemas {
  const document = readYaml('../../asyncapi/conversation.yaml');
  Object.assign(document.components.schemas, readYaml('../../openapi/conversations.yaml').components.schemas);
  return document;
}

type WithSchemas = Record<string, unknown> & { components: { schemas: Record<string, unknown> } };

const readYaml = (relative: string) =>
  parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as WithSchemas;

let served: WithSchemas | undefined;

/**
 * The channel's document, read on first use: processes that serve no sockets (worker, operator)
 * read no YAML when they import the package.
 */
export function asyncapiDocument(): WithSchemas {
  served ??= loadAsyncApiDocument();
  return served;
}

export type ClientFrame =
  | { type: 'post'; content: string; client_id: string }
  | { type: 'resume'; after: string }
  | { type: 'auth'; token: string }
  | { type: 'ping' };

export type ErrorCode =
  | 'token_expired'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'invalid_frame'
  | 'rate_limited'
  | 'insufficient_balance'
  | 'reply_failed'
  | 'reply_unavailable'
  | 'internal_error';

export type ServerFrame =
  | { type: 'ready'; conversation_id: string; user_id: string; last_seq: number }
  | { type: 'message'; message: ConversationMessage }
  | { type: 'ack'; client_id: string; message_id: string; seq: number; duplicate: boolean }
  | { type: 'resumed'; after: string; count: number }
  | { type: 'authenticated'; user_id: string }
  | { type: 'delta'; reply_to_id: string; index: number; text: string }
  | {
      type: 'generation';
      file_id: string;
      generation_id: string;
      status: 'pending' | 'processing' | 'completed' | 'failed';
      error_message?: string;
    }
  | {
      type: 'error';
      code: ErrorCode;
      message: string;
      client_id?: string;
      reply_to_id?: string;
      retry_after_ms?: number;
    }
  | { type: 'pong' };

const CLIENT_FRAME_SCHEMAS: Record<ClientFrame['type'], string> = {
  post: 'PostFrame',
  resume: 'ResumeFrame',
  auth: 'AuthFrame',
  ping: 'PingFrame',
};

let validators: Map<string, ValidateFunction> | undefined;

/** The client frames' validators, compiled from the document on first use. */
function frameValidators(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats.default(ajv);
  ajv.addSchema(asyncapiDocument(), 'asyncapi');
  validators = new Map(
    Object.entries(CLIENT_FRAME_SCHEMAS).map(([type, schema]) => [
      type,
      ajv.getSchema(`asyncapi#/components/schemas/${schema}`)!,
    ]),
  );
  return validators;
}

/** A client frame checked against the document, or the reason it is not one. */
export function parseClientFrame(value: unknown): { frame: ClientFrame } | { problem: string } {
  const type = (value as { type?: unknown } | null)?.type;
  const validate = typeof type === 'string' ? frameValidators().get(type) : undefined;
  if (!validate) {
    return { problem: `type must be one of ${Object.keys(CLIENT_FRAME_SCHEMAS).join(', ')}` };
  }
  if (validate(value)) return { frame: value as ClientFrame };
  return { problem: describe(validate.errors ?? []) };
}

function describe(errors: ErrorObject[]): string {
  return errors.map((error) => `${error.instancePath || '/'} ${error.message}`).join('; ');
}

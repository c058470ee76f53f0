import {
  PaymentRequiredError,
  taskQueueOf,
  type Config,
  type Logger,
  type SecretBox,
  type Sequelize,
  one,
  transact,
} from '@muse/core';
import type { Client as TemporalClient } from '@temporalio/client';
import { adapterFor } from '../generators/adapters/registry.ts';
import type { AdapterContext, ChatTask } from '../generators/adapters/types.ts';
import { executionSettings, type ExecutionSettings } from '../generators/generators.ts';
import { postEntry, refundCharge } from '../ledger/ledger.ts';
import {
  appendMessage,
  findMessage,
  latestMessages,
  publishConversationEvent,
  type ConversationMessage,
} from './messages.ts';

/**
 * A character's reply to a user message, as the steps of its workflow (temporal/src/workflows/
 * character-reply.ts): charge the author for the character's text generator, stream the
 * upstream's answer as `reply.delta` events, store it, or refund and announce the failure.
 * Each step is keyed by the user message's id, so retries neither charge, refund nor store twice.
 */
export const REPLY_WORKFLOW = 'characterReplyWorkflow';
export const replyWorkflowId = (messageId: string) => `reply-${messageId}`;
const chargeReference = (messageId: string) => `reply:${messageId}`;

/** How many earlier messages the upstream sees. */
const CONTEXT_MESSAGES = 30;
/** A delta stays far below the 8000-byte notification cap. */
const MAX_DELTA_CHARS = 1000;

interface ReplySource {
  conversation_id: string;
  author_id: string | null;
  persona: string;
  generator_name: string;
  generator_type: string;
  base_cost: number;
  config: Record<string, unknown>;
  secrets: Record<string, unknown>;
}

/** The message's conversation has a character bound to an active text generator that can stream. */
async function replySource(db: Sequelize, messageId: string): Promise<ReplySource | undefined> {
  const row = await one<ReplySource>(
    db,
    `SELECT m.conversation_id, m.author_id, ch.persona, g.name AS generator_name, g.type AS generator_type,
            g.base_cost, g.config, g.secrets
       FROM content.conversation_messages m
       JOIN content.conversations c ON c.id = m.conversation_id
       JOIN content.characters ch ON ch.id = c.character_id
       JOIN content.generators g ON g.id = ch.generator_id
      WHERE m.id = :messageId AND m.role = 'user' AND g.kind = 'text' AND g.is_active`,
    { messageId },
  );
  return row && adapterFor(row.generator_type).streamChat ? row : undefined;
}

export interface ReplyStarter {
  db: Sequelize;
  temporal: TemporalClient;
  config: Config;
  logger: Logger;
}

/**
 * Starts the reply workflow of a just-stored user message, if its character answers. It never
 * throws (the message is stored either way): when Temporal cannot be reached nothing was charged
 * yet, and the conversation hears `reply_unavailable`.
 */
export async function startReply(deps: ReplyStarter, message: ConversationMessage): Promise<void> {
  if (message.role !== 'user') return;
  try {
    if (!(await replySource(deps.db, message.id))) return;
    await deps.temporal.withDeadline(Date.now() + deps.config.MUSE_TEMPORAL_CALL_TIMEOUT_MS, () =>
      deps.temporal.workflow.start(REPLY_WORKFLOW, {
        taskQueue: taskQueueOf(deps.config, 'delivery'),
        workflowId: replyWorkflowId(message.id),
        args: [message.id],
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'WorkflowExecutionAlreadyStartedError') return;
    deps.logger.error({ err: error, messageId: message.id }, 'could not start the reply workflow');
    announceFailure(deps.db, message, 'reply_unavailable', 'The character cannot answer now; try again');
  }
}

export type ReplyPlan =
  { state: 'answered' | 'not_answering' } | ({ state: 'due'; cost: number } & ExecutionSettings);

/** What the workflow needs to run: whether a reply is still due, its cost and the generator's limits. */
export async function planReply(db: Sequelize, messageId: string): Promise<ReplyPlan> {
  const source = await replySource(db, messageId);
  if (!source) return { state: 'not_answering' };
  const answered = await one(
    db,
    'SELECT 1 FROM content.conversation_messages WHERE reply_to_id = :messageId',
    { messageId },
  );
  if (answered) return { state: 'answered' };
  return { state: 'due', cost: source.base_cost, ...executionSettings(source.config) };
}

/**
 * Charges the author the generator's base cost (once: the ledger keys it by the message).
 * Too low a balance charges nothing and tells the conversation `insufficient_balance`.
 */
export async function chargeReply(
  db: Sequelize,
  messageId: string,
): Promise<'charged' | 'free' | 'insufficient_balance'> {
  const source = await replySource(db, messageId);
  if (!source?.author_id || source.base_cost === 0) return 'free';
  try {
    await transact(db, (transaction) =>
      postEntry(db, transaction, {
        userId: source.author_id!,
        amount: -source.base_cost,
        kind: 'charge',
        reference: chargeReference(messageId),
        description: `${source.generator_name}: character reply`,
      }),
    );
    return 'charged';
  } catch (error) {
    if (!(error instanceof PaymentRequiredError)) throw error;
    announceFailure(db, await requireMessage(db, messageId), 'insufficient_balance', error.message);
    return 'insufficient_balance';
  }
}

/** Streams the upstream's answer; each piece is published as a `reply.delta` as it arrives. */
export async function streamReply(
  db: Sequelize,
  messageId: string,
  outbound: Pick<AdapterContext, 'fetch' | 'logger'>,
  box: SecretBox,
): Promise<string> {
  const source = await replySource(db, messageId);
  if (!source) throw new Error(`Message ${messageId} no longer has a character that answers`);
  const history = await latestMessages(db, source.conversation_id, CONTEXT_MESSAGES);
  const chat: ChatTask = {
    messages: [
      ...(source.persona ? [{ role: 'system' as const, content: source.persona }] : []),
      ...history.map(({ role, content }) => ({ role, content })),
    ],
    config: source.config,
    secrets: box.openValues(source.secrets),
  };
  const settings = executionSettings(source.config);
  const context: AdapterContext = {
    ...outbound,
    requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
    maxResultBytes: settings.maxResultBytes,
  };
  let index = 0;
  return adapterFor(source.generator_type).streamChat!(chat, context, async (text) => {
    for (let start = 0; start < text.length; start += MAX_DELTA_CHARS) {
      publishConversationEvent(db, {
        type: 'reply.delta',
        conversation_id: source.conversation_id,
        reply_to_id: messageId,
        index: index++,
        text: text.slice(start, start + MAX_DELTA_CHARS),
      });
    }
  });
}

/** Stores the reply as the character's message (once per replied-to message) and announces it. */
export async function storeReply(db: Sequelize, messageId: string, content: string): Promise<void> {
  const message = await requireMessage(db, messageId);
  await transact(db, (transaction) =>
    appendMessage(db, transaction, message.conversation_id, {
      authorId: null,
      role: 'assistant',
      content: content || '…',
      replyToId: messageId,
    }),
  );
}

/**
 * The compensation of the charge: refunds it (the ledger refunds a charge once) and tells the
 * conversation `reply_failed`, in one transaction, announced only by the run that refunded.
 */
export async function refundReply(db: Sequelize, messageId: string, reason: string): Promise<void> {
  const message = await requireMessage(db, messageId);
  await transact(db, async (transaction) => {
    const charge = await one<{ id: string; refunded: boolean }>(
      db,
      `SELECT c.id, EXISTS (SELECT 1 FROM content.transaction_logs r WHERE r.reverses_id = c.id) AS refunded
         FROM content.transaction_logs c WHERE c.kind = 'charge' AND c.reference = :reference FOR UPDATE`,
      { reference: chargeReference(messageId) },
      transaction,
    );
    if (charge?.refunded) return;
    if (charge) await refundCharge(db, transaction, charge.id, 'Refund: the character reply failed');
    announceFailure(db, message, 'reply_failed', reason, transaction);
  });
}

function announceFailure(
  db: Sequelize,
  message: ConversationMessage,
  code: string,
  text: string,
  transaction?: Parameters<typeof publishConversationEvent>[2],
): void {
  publishConversationEvent(
    db,
    {
      type: 'reply.failed',
      conversation_id: message.conversation_id,
      reply_to_id: message.id,
      code,
      message: text.slice(0, 500),
    },
    transaction,
  );
}

async function requireMessage(db: Sequelize, messageId: string): Promise<ConversationMessage> {
  const message = await findMessage(db, messageId);
  if (!message) throw new Error(`No conversation message ${messageId}`);
  return message;
}

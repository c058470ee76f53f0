import {
  createScheduledMessage,
  deleteScheduledMessage,
  editScheduledMessage,
  scheduledType,
} from '../domain/actions/scheduled-messages.ts';
import { endpoint } from '../http/endpoint.ts';
import { JsonableError } from '../http/errors.ts';
import { p, Param } from '../http/params.ts';
import { schema } from './schemas.ts';
import { listScheduledMessages } from '../domain/presenters/scheduled-messages.ts';

const types = ['direct', 'channel', 'stream', 'private'] as const;

/**
 * `to`: a channel id, or a non-empty list of user ids (a single id is a one-item list for direct
 * messages). JSON, or leniently a comma-joined list, which zulip-js puts in PATCH query strings.
 */
const recipients = () =>
  new Param<number | number[]>(
    (raw) => {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        value = /^\d+(,\d+)+$/.test(raw.trim()) ? raw.split(',').map(Number) : undefined;
      }
      const ids = Array.isArray(value) ? value : [value];
      if (ids.length === 0 || !ids.every((id) => Number.isSafeInteger(id)))
        throw new JsonableError('Invalid to: must be a channel ID or a list of user IDs');
      return value as number | number[];
    },
    { anyOf: [{ type: 'integer' }, { type: 'array', items: { type: 'integer' }, minItems: 1 }] },
  ).describe('A channel id, or a list of user ids');

const topic = () =>
  p
    .string()
    .aliased('subject')
    .describe(
      'Channel messages; "(no topic)" is the empty topic, refused where topics are required. Limit: max_topic_length',
    );
const id = () => p.id().describe("The scheduled message's own id, not the id it will have once sent");

const DELIVERY =
  'Checked as POST /messages would check it now, and again at the time. Delivery runs on Temporal ' +
  '(one workflow per scheduled message, a durable timer) through the send path of POST /messages, at most once; ' +
  'a send refused then keeps the message with failed: true and an update event.';

/** GET/POST /scheduled_messages, PATCH/DELETE /scheduled_messages/{scheduled_message_id}. */
export const scheduledMessageEndpoints = [
  endpoint({
    method: 'get',
    path: '/scheduled_messages',
    operationId: 'listScheduledMessages',
    summary: "The caller's undelivered scheduled messages (failed ones included), soonest first",
    description:
      'Each with its id, recipients, topic, content (raw and rendered), the time it is due ' +
      '(scheduled_delivery_timestamp) and failed: true when delivery was tried and refused (the ' +
      'message stays until it is edited to a new time or deleted). Sent ones are not listed. Only ' +
      "the caller's own.",
    response: {
      required: ['scheduled_messages'],
      properties: { scheduled_messages: { type: 'array', items: schema('ScheduledMessage') } },
    },
    example: {
      response: {
        scheduled_messages: [
          {
            scheduled_message_id: 7,
            type: 'stream',
            to: 2,
            topic: 'launch plan',
            content: 'Reminder: the design review starts in an hour.',
            rendered_content: '<p>Reminder: the design review starts in an hour.</p>',
            scheduled_delivery_timestamp: 1893488400,
            failed: false,
          },
        ],
      },
    },
    view: async (_params, actor) => ({
      scheduled_messages: await listScheduledMessages(actor.db, actor.user.id),
    }),
  }),
  endpoint({
    method: 'post',
    path: '/scheduled_messages',
    operationId: 'createScheduledMessage',
    summary: 'Schedule a channel or direct message for a time in the future',
    description:
      `${DELIVERY} An unknown channel is STREAM_DOES_NOT_EXIST with stream_id; an unknown user id BAD_REQUEST. ` +
      '503 when Temporal cannot be reached (nothing is kept).',
    params: {
      type: p.oneOf(types).describe('direct or channel; private and stream are their legacy names'),
      to: recipients(),
      content: p.string().describe('Markdown; limit: max_message_length'),
      topic: topic().default(''),
      scheduled_delivery_timestamp: p.int().describe('UNIX timestamp (seconds), in the future'),
      read_by_sender: p.bool().default(true),
    },
    response: {
      required: ['scheduled_message_id'],
      properties: { scheduled_message_id: { type: 'integer' } },
    },
    errors: [503],
    example: {
      params: {
        type: 'stream',
        to: 2,
        topic: 'launch plan',
        content: 'Reminder: the design review starts in an hour.',
        scheduled_delivery_timestamp: 1893488400,
      },
      response: { scheduled_message_id: 7 },
    },
    view: async (params, actor) => ({
      scheduled_message_id: await createScheduledMessage(actor, actor.runtime.scheduler, {
        type: scheduledType(params.type),
        to: params.to,
        topic: params.topic,
        content: params.content,
        timestamp: params.scheduled_delivery_timestamp,
        readBySender: params.read_by_sender,
      }),
    }),
  }),
  endpoint({
    method: 'patch',
    path: '/scheduled_messages/{scheduled_message_id}',
    operationId: 'editScheduledMessage',
    summary: 'Edit the type, destination, topic, content or time of a scheduled message',
    description:
      'A new type needs to, and a topic when it becomes a channel message. The running delivery workflow is ' +
      'signalled with the numbered edit, so concurrent edits (from any API process) end with the last one committed. ' +
      'A message that failed to send needs scheduled_delivery_timestamp, which schedules it again. One that does not ' +
      "exist, is someone else's or was sent is 404. 409 if it kept changing under 20 attempts; 503 if Temporal " +
      'could not be told (the edit is saved; repeat it).',
    params: {
      scheduled_message_id: id(),
      type: p.oneOf(types).optional(),
      to: recipients().optional(),
      content: p.string().optional(),
      topic: topic().optional(),
      scheduled_delivery_timestamp: p.int().optional(),
    },
    errors: [404, 409, 503],
    example: {
      params: {
        scheduled_message_id: 7,
        content: 'Reminder: the design review starts in 30 minutes.',
        scheduled_delivery_timestamp: 1893490200,
      },
      response: {},
    },
    view: async (params, actor) => {
      await editScheduledMessage(actor, actor.runtime.scheduler, params.scheduled_message_id, {
        type: params.type === undefined ? undefined : scheduledType(params.type),
        to: params.to,
        topic: params.topic,
        content: params.content,
        timestamp: params.scheduled_delivery_timestamp,
      });
    },
  }),
  endpoint({
    method: 'delete',
    path: '/scheduled_messages/{scheduled_message_id}',
    operationId: 'deleteScheduledMessage',
    summary: 'Delete a scheduled message, cancelling its delivery',
    description:
      "Removes the caller's scheduled message before it is delivered, then cancels its delivery. " +
      'One that does not exist, was already delivered or is someone else\'s is 404 "Scheduled ' +
      'message does not exist". The caller\'s clients get scheduled_messages remove.',
    params: { scheduled_message_id: id() },
    errors: [404],
    example: { params: { scheduled_message_id: 7 }, response: {} },
    view: async ({ scheduled_message_id }, actor) => {
      await deleteScheduledMessage(actor, actor.runtime.scheduler, scheduled_message_id);
    },
  }),
];

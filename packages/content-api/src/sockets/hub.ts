import type { EventBus, Logger, Sequelize } from '@muse/core';
import { conversationChannel, findMessage, type ConversationEvent } from '../conversations/messages.ts';
import { FILE_STATUS_CHANNEL, type FileStatusEvent } from '../generations/events.ts';
import type { ServerFrame } from './protocol.ts';

/** What the hub delivers to: a socket's session, whatever its transport. */
export interface Member {
  readonly user: { id: string };
  readonly conversationId: string;
  deliver(frame: ServerFrame): void;
  /**
   * Checks the account and its access to the conversation again, as the REST read would, and
   * closes the socket when they refuse; frames delivered meanwhile wait for the answer.
   */
  recheck(): Promise<void>;
}

/** Where the database announces a change to an account's access (migration 0800). */
export const ACCOUNT_ACCESS_CHANNEL = 'muse_account_access';

/** On a conversation's channel: its visibility or owner changed, or it was deleted (migration 0800). */
interface AccessChanged {
  type: 'access.changed';
  conversation_id: string;
}

interface Room {
  members: Set<Member>;
  /** Resolves once this process listens to the conversation's channel. */
  listening: Promise<() => Promise<void>>;
  /** Events are turned into frames one after another, so storage order is kept. */
  queue: Promise<void>;
}

/**
 * This process's side of the fan-out. Every process listens (LISTEN/NOTIFY) to the channels of
 * the conversations its sockets are on, and to the file-status channel; whatever is stored or
 * published on any process reaches every socket here. It owns the sockets' membership.
 */
export class SocketHub {
  private readonly rooms = new Map<string, Room>();
  private readonly byUser = new Map<string, Set<Member>>();
  private stopFileStatus: Promise<() => Promise<void>> | undefined;
  private stopAccountAccess: Promise<() => Promise<void>> | undefined;

  private readonly deps: { db: Sequelize; events: EventBus; logger: Logger };

  constructor(deps: { db: Sequelize; events: EventBus; logger: Logger }) {
    this.deps = deps;
  }

  /** Adds a member; resolves once events of its conversation are being received. */
  async join(member: Member): Promise<void> {
    this.stopFileStatus ??= this.deps.events.subscribe(FILE_STATUS_CHANNEL, (event) =>
      this.onFileStatus(event as FileStatusEvent),
    );
    this.stopAccountAccess ??= this.deps.events.subscribe(ACCOUNT_ACCESS_CHANNEL, (event) =>
      this.onAccountAccess(event as { user_id: string }),
    );
    let room = this.rooms.get(member.conversationId);
    if (!room) {
      const created: Room = {
        members: new Set(),
        queue: Promise.resolve(),
        listening: Promise.resolve(async () => {}),
      };
      created.listening = this.deps.events.subscribe(conversationChannel(member.conversationId), (event) =>
        this.onConversationEvent(created, event as ConversationEvent | AccessChanged),
      );
      room = created;
      this.rooms.set(member.conversationId, room);
    }
    room.members.add(member);
    const mine = this.byUser.get(member.user.id) ?? new Set();
    mine.add(member);
    this.byUser.set(member.user.id, mine);
    await Promise.all([room.listening, this.stopFileStatus, this.stopAccountAccess]);
  }

  leave(member: Member): void {
    const room = this.rooms.get(member.conversationId);
    if (room?.members.delete(member) && room.members.size === 0) {
      this.rooms.delete(member.conversationId);
      void room.listening.then((stop) => stop()).catch(() => {});
    }
    const mine = this.byUser.get(member.user.id);
    if (mine?.delete(member) && mine.size === 0) this.byUser.delete(member.user.id);
  }

  socketsOf(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  /**
   * Events of a conversation are handled in order: after a change of its access, every member is
   * checked again before the next event reaches any of them.
   */
  private onConversationEvent(room: Room, event: ConversationEvent | AccessChanged): void {
    room.queue = room.queue
      .then(async () => {
        if (event.type === 'access.changed') {
          await Promise.all([...room.members].map((member) => member.recheck()));
          return;
        }
        const frame = await this.frameOf(event);
        if (frame) for (const member of room.members) member.deliver(frame);
      })
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'conversation event not delivered'));
  }

  private async frameOf(event: ConversationEvent): Promise<ServerFrame | undefined> {
    switch (event.type) {
      case 'message.created': {
        // A message too large for a notification is announced by id and read here, once per process.
        const message = event.message ?? (await findMessage(this.deps.db, event.message_id));
        return message && { type: 'message', message };
      }
      case 'reply.delta':
        return { type: 'delta', reply_to_id: event.reply_to_id, index: event.index, text: event.text };
      case 'reply.failed':
        return {
          type: 'error',
          code: event.code as 'reply_failed',
          message: event.message,
          reply_to_id: event.reply_to_id,
        };
      default:
        return undefined;
    }
  }

  /**
   * An account's ban, permissions or deletion: its sockets on this process are checked again at
   * once; what reaches them meanwhile waits for the answer (`recheck` holds it from its first step).
   */
  private onAccountAccess(event: { user_id: string }): void {
    for (const member of this.byUser.get(event.user_id) ?? []) void member.recheck();
  }

  /** A file's status reaches its owner's sockets only. */
  private onFileStatus(event: FileStatusEvent): void {
    const frame: ServerFrame = {
      type: 'generation',
      file_id: event.file_id,
      generation_id: event.generation_id,
      status: event.status,
      ...(event.error_message ? { error_message: event.error_message } : {}),
    };
    for (const member of this.byUser.get(event.owner_id) ?? []) member.deliver(frame);
  }
}

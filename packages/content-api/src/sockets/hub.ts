import { payloadsOf, type Logger, type MessageBus, type Sequelize, rows } from '@muse/core';
import {
  CONVERSATION_ACCESS,
  conversationChannel,
  findMessage,
  messagesBetween,
  type ConversationEvent,
} from '../conversations/messages.ts';
import { FILE_STATUS_CHANNEL, type FileStatusEvent } from '../generations/events.ts';
import { ACCOUNT_ACCESS_CHANNEL } from '../users/access-events.ts';
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

/** How often the rooms of this process read their conversations again, for what the bus lost. */
const CATCH_UP_MS = 2000;
/** Most messages one catch-up read delivers; the next read goes on from there. */
const CATCH_UP_BATCH = 500;

interface Room {
  id: string;
  members: Set<Member>;
  /** This process's subscription to the conversation's channel. */
  listening: Promise<() => Promise<void>>;
  /** Resolves once the room listens and knows the conversation's latest seq. */
  ready: Promise<void>;
  /** Events are turned into frames one after another, so storage order is kept. */
  queue: Promise<void>;
  /** The latest message delivered here: every later one is delivered in seq order, none twice. */
  lastSeq: number;
  /** The conversation's visibility and owner as last seen (a change re-checks every member first). */
  access: string | undefined;
}

export interface HubDeps {
  db: Sequelize;
  /** The bus the content API announces on (MUSE_EVENT_BUS). */
  bus: MessageBus;
  logger: Logger;
  catchUpMs?: number;
}

/**
 * This process's side of the fan-out. Every process subscribes to the channels of the
 * conversations its sockets are on, and to the file-status channel; whatever is stored or
 * announced on any process reaches every socket here. It owns the sockets' membership.
 *
 * Announcements come after commit, batched per process, so they can arrive out of storage order
 * (two processes) or not at all (a publish lost with its process or connection). The database is
 * the truth: a room delivers messages strictly by seq, reading a gap from the table when a later
 * message arrives first, and every CATCH_UP_MS one query reads the latest seq (and access) of
 * all this process's rooms, so a lost announcement delays its message by that much at most.
 */
export class SocketHub {
  private readonly rooms = new Map<string, Room>();
  private readonly byUser = new Map<string, Set<Member>>();
  private stopFileStatus: Promise<() => Promise<void>> | undefined;
  private stopAccountAccess: Promise<() => Promise<void>> | undefined;
  private catchUpTimer: NodeJS.Timeout | undefined;

  private readonly deps: HubDeps;

  constructor(deps: HubDeps) {
    this.deps = deps;
  }

  /** Adds a member; resolves once events of its conversation are being received. */
  async join(member: Member): Promise<void> {
    this.stopFileStatus ??= this.deps.bus.subscribe(FILE_STATUS_CHANNEL, (message) => {
      for (const event of payloadsOf(message)) this.onFileStatus(event as FileStatusEvent);
    });
    // Once per process (not per room): after the bus lost its connection, every room reads its
    // conversation at once rather than at the next CATCH_UP_MS.
    this.stopAccountAccess ??= this.deps.bus.subscribe(
      ACCOUNT_ACCESS_CHANNEL,
      (message) => {
        for (const event of payloadsOf(message)) this.onAccountAccess(event as { user_id: string });
      },
      () => void this.catchUpAll(),
    );
    const room = this.rooms.get(member.conversationId) ?? this.openRoom(member.conversationId);
    room.members.add(member);
    const mine = this.byUser.get(member.user.id) ?? new Set();
    mine.add(member);
    this.byUser.set(member.user.id, mine);
    this.catchUpTimer ??= setInterval(
      () => void this.catchUpAll(),
      this.deps.catchUpMs ?? CATCH_UP_MS,
    ).unref();
    await Promise.all([room.ready, this.stopFileStatus, this.stopAccountAccess]);
  }

  leave(member: Member): void {
    const room = this.rooms.get(member.conversationId);
    if (room?.members.delete(member) && room.members.size === 0) this.closeRoom(room);
    const mine = this.byUser.get(member.user.id);
    if (mine?.delete(member) && mine.size === 0) this.byUser.delete(member.user.id);
    if (this.rooms.size === 0) {
      clearInterval(this.catchUpTimer);
      this.catchUpTimer = undefined;
    }
  }

  socketsOf(userId: string): number {
    return this.byUser.get(userId)?.size ?? 0;
  }

  private openRoom(id: string): Room {
    const room: Room = {
      id,
      members: new Set(),
      listening: Promise.resolve(async () => {}),
      ready: Promise.resolve(),
      queue: Promise.resolve(),
      lastSeq: 0,
      access: undefined,
    };
    const handler = (message: unknown) => {
      for (const event of payloadsOf(message)) this.onConversationEvent(room, event as ConversationEvent);
    };
    room.listening = this.deps.bus.subscribe(conversationChannel(id), handler);
    // Listening first, then reading the latest seq: a message is either read or announced after.
    room.ready = room.listening.then(async () => {
      const [state] = await this.readStates([id]);
      room.lastSeq = state?.seq ?? 0;
      room.access = state?.access;
    });
    room.queue = room.ready.catch(() => {
      if (this.rooms.get(id) === room) this.closeRoom(room); // the next join tries again
    });
    this.rooms.set(id, room);
    return room;
  }

  private closeRoom(room: Room): void {
    if (this.rooms.get(room.id) === room) this.rooms.delete(room.id);
    void room.listening.then((stop) => stop()).catch(() => {});
  }

  /** Events of a room are handled in order, each after the one before. */
  private onConversationEvent(room: Room, event: ConversationEvent): void {
    this.enqueue(room, async () => {
      switch (event.type) {
        case 'access.changed':
          room.access = (await this.readStates([room.id]))[0]?.access;
          return this.recheckAll(room);
        case 'message.created':
          return this.onMessage(room, event);
        case 'reply.delta':
          return this.deliver(room, {
            type: 'delta',
            reply_to_id: event.reply_to_id,
            index: event.index,
            text: event.text,
          });
        case 'reply.failed':
          return this.deliver(room, {
            type: 'error',
            code: event.code as 'reply_failed',
            message: event.message,
            reply_to_id: event.reply_to_id,
          });
      }
    });
  }

  private enqueue(room: Room, step: () => Promise<void>): void {
    room.queue = room.queue
      .then(step)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'conversation event not delivered'));
  }

  /**
   * A stored message: delivered after every earlier one (read from the table when the bus has not
   * brought them yet), and after a re-check of every member when the conversation's access
   * changed since the last message (whichever of the two announcements arrives first).
   */
  private async onMessage(room: Room, event: Extract<ConversationEvent, { type: 'message.created' }>) {
    if (event.seq <= room.lastSeq) return;
    if (event.access !== undefined && event.access !== room.access) {
      room.access = event.access;
      await this.recheckAll(room);
    }
    if (event.seq > room.lastSeq + 1) return this.catchUp(room, event.seq);
    const message = event.message ?? (await findMessage(this.deps.db, event.message_id));
    if (!message) return;
    room.lastSeq = event.seq;
    this.deliver(room, { type: 'message', message });
  }

  /** Delivers the stored messages after the room's last one, up to `upTo`, in seq order. */
  private async catchUp(room: Room, upTo: number): Promise<void> {
    while (room.lastSeq < upTo) {
      const missed = await messagesBetween(
        this.deps.db,
        room.id,
        { after: room.lastSeq, upTo },
        CATCH_UP_BATCH,
      );
      if (missed.length === 0) return;
      for (const message of missed) {
        room.lastSeq = message.seq;
        this.deliver(room, { type: 'message', message });
      }
    }
  }

  /** One read of every room's conversation; rooms behind it catch up (and re-check on an access change). */
  private async catchUpAll(): Promise<void> {
    const rooms = [...this.rooms.values()];
    if (rooms.length === 0) return;
    try {
      const states = new Map((await this.readStates(rooms.map((room) => room.id))).map((s) => [s.id, s]));
      for (const room of rooms) {
        const state = states.get(room.id);
        if (state && state.seq <= room.lastSeq && state.access === room.access) continue;
        this.enqueue(room, async () => {
          if (state?.access !== room.access) {
            room.access = state?.access;
            await this.recheckAll(room);
          }
          if (state) await this.catchUp(room, state.seq);
        });
      }
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'the conversation sockets could not catch up; retrying');
    }
  }

  private async readStates(ids: string[]): Promise<{ id: string; seq: number; access: string }[]> {
    const found = await rows<{ id: string; message_seq: string; access: string }>(
      this.deps.db,
      `SELECT id, message_seq, ${CONVERSATION_ACCESS} AS access FROM content.conversations WHERE id IN (:ids)`,
      { ids },
    );
    return found.map((row) => ({ id: row.id, seq: Number(row.message_seq), access: row.access }));
  }

  private async recheckAll(room: Room): Promise<void> {
    await Promise.all([...room.members].map((member) => member.recheck()));
  }

  private deliver(room: Room, frame: ServerFrame): void {
    for (const member of room.members) member.deliver(frame);
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

import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { Express } from 'express';

/** A connection refused before anything is spent on it: 429 (its address) or 503 (this process). */
export interface GateRefusal {
  status: 429 | 503;
  code: 'too_many_connections' | 'server_busy';
  message: string;
  retryAfterSeconds: number;
}

/** One connection's place at the gate, from its first byte to its close. */
export interface Ticket {
  /** The token and conversation (socket.io: a namespace) accepted it: it no longer counts as pending. */
  admit(): void;
  /** It is closed (or refused); safe to call more than once. */
  release(): void;
}

/**
 * The caps taken before a socket costs anything (a database read, an upgrade, a session): the
 * connections of one client address, admitted or not, and the connections of this process that
 * are not yet admitted. Both transports pass here, so neither can be used to go around the other.
 */
export class ConnectionGate {
  private readonly byAddress = new Map<string, number>();
  private pending = 0;
  private readonly limits: { perAddress: number; pending: number };
  private readonly addressOf: (req: IncomingMessage) => string;

  constructor(limits: { perAddress: number; pending: number }, app: Express) {
    this.limits = limits;
    // The same client address Express gives the REST API (`req.ip`, MUSE_TRUST_PROXY).
    const trust = app.get('trust proxy fn') as Parameters<typeof proxyAddr>[1];
    this.addressOf = (req) => proxyAddr(req, trust);
  }

  enter(req: IncomingMessage): Ticket | GateRefusal {
    const address = this.addressOf(req);
    const held = this.byAddress.get(address) ?? 0;
    if (held >= this.limits.perAddress) {
      return {
        status: 429,
        code: 'too_many_connections',
        message: `This address already holds ${this.limits.perAddress} sockets on this server`,
        retryAfterSeconds: 5,
      };
    }
    if (this.pending >= this.limits.pending) {
      return {
        status: 503,
        code: 'server_busy',
        message: 'This server is admitting too many sockets at once; try again shortly',
        retryAfterSeconds: 1,
      };
    }
    this.byAddress.set(address, held + 1);
    this.pending++;
    let state: 'pending' | 'admitted' | 'released' = 'pending';
    return {
      admit: () => {
        if (state !== 'pending') return;
        state = 'admitted';
        this.pending--;
      },
      release: () => {
        if (state === 'released') return;
        if (state === 'pending') this.pending--;
        state = 'released';
        const left = (this.byAddress.get(address) ?? 1) - 1;
        if (left > 0) this.byAddress.set(address, left);
        else this.byAddress.delete(address);
      },
    };
  }
}

export const isRefusal = (entry: Ticket | GateRefusal): entry is GateRefusal => 'status' in entry;

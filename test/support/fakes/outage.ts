import type { ServerResponse } from 'node:http';

/**
 * How a fake payment provider is down: `unavailable` answers every call 503 from the gateway in
 * front of it (unsigned, as a load balancer answers); `hang` takes the connection and never
 * answers (a host that stopped responding), until the outage ends.
 */
export type OutageMode = 'unavailable' | 'hang';

/** What a call asked the provider for, as the outage counts it. */
export type ProviderCall = 'order' | 'query' | 'close' | 'refund' | 'other';

/**
 * The outage switch a fake provider consults before anything else: while it is on, a call
 * changes nothing at the provider (no order, no refund, no answer but the outage's).
 */
export function providerOutage() {
  let mode: OutageMode | undefined;
  const calls = new Map<ProviderCall, number>();
  const held = new Set<ServerResponse>();
  return {
    /** The provider goes down. */
    start(how: OutageMode) {
      mode = how;
    },
    /** The provider is back; connections still held are dropped (their callers gave up long ago). */
    end() {
      mode = undefined;
      for (const res of held) res.destroy();
      held.clear();
    },
    get mode() {
      return mode;
    },
    /** Calls of this kind that met the outage so far. */
    turnedAway(call: ProviderCall): number {
      return calls.get(call) ?? 0;
    },
    /** Plays the outage on this call; answers whether it did (the fake then does nothing more). */
    intercept(res: ServerResponse, call: ProviderCall): boolean {
      if (!mode) return false;
      calls.set(call, (calls.get(call) ?? 0) + 1);
      if (mode === 'hang') {
        held.add(res);
        res.on('close', () => held.delete(res));
        return true;
      }
      res.writeHead(503, { 'Content-Type': 'text/html' });
      res.end('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
      return true;
    },
  };
}

export type ProviderOutage = ReturnType<typeof providerOutage>;

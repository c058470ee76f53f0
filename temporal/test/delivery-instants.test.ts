import { describe, expect, it } from 'vitest';
import { createDeliveryInstants } from '../src/activities/delivery-instants.ts';

/** Whether `promise` has settled by the time the microtasks queued now have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

const LONG = 60_000;

describe("one worker's deliveries by instant: a sent attempt's completion waits for its instant", () => {
  it('is held while another due at the same instant or before is sending, released when the last is done', async () => {
    const instants = createDeliveryInstants();
    const [first, second, earlier, later] = [1, 2, 3, 4].map(() => instants.begin());
    first!.dueAt(1000);
    second!.dueAt(1000);
    earlier!.dueAt(500);
    later!.dueAt(2000);
    first!.done();
    const held = instants.settled(1000, LONG);
    expect(await isSettled(held)).toBe(false);
    second!.done();
    expect(await isSettled(held)).toBe(false);
    earlier!.done();
    // One due later (`later`) holds back nobody due before it.
    expect(await isSettled(held)).toBe(true);
    const latest = instants.settled(2000, LONG);
    expect(await isSettled(latest)).toBe(false);
    later!.done();
    expect(await isSettled(latest)).toBe(true);
  });

  it('an attempt that failed (done without sending) no longer holds anyone back', async () => {
    const instants = createDeliveryInstants();
    const [sent, failing] = [instants.begin(), instants.begin()];
    sent.dueAt(1000);
    failing.dueAt(1000);
    sent.done();
    const held = instants.settled(1000, LONG);
    expect(await isSettled(held)).toBe(false);
    failing.done();
    expect(await isSettled(held)).toBe(true);
  });

  it('an attempt moved to a later instant (an edit) stops holding back the earlier one', async () => {
    const instants = createDeliveryInstants();
    const [sent, moved] = [instants.begin(), instants.begin()];
    sent.dueAt(1000);
    moved.dueAt(1000);
    sent.done();
    const held = instants.settled(1000, LONG);
    moved.dueAt(5000);
    expect(await isSettled(held)).toBe(true);
    expect(await isSettled(instants.settled(5000, LONG))).toBe(false);
  });

  it('a hold ends after its bound, or when its attempt is cancelled, even if a send never ends', async () => {
    const instants = createDeliveryInstants();
    instants.begin().dueAt(1000);
    const started = Date.now();
    await instants.settled(1000, 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);

    const cancel = new AbortController();
    const held = instants.settled(1000, LONG, cancel.signal);
    expect(await isSettled(held)).toBe(false);
    cancel.abort();
    expect(await isSettled(held)).toBe(true);
    // Cancelled already: not held at all.
    expect(await isSettled(instants.settled(1000, LONG, cancel.signal))).toBe(true);
  });

  it('nothing sending, or an attempt that never knew its instant: not held', async () => {
    const instants = createDeliveryInstants();
    expect(await isSettled(instants.settled(1000, LONG))).toBe(true);
    const unknown = instants.begin();
    expect(unknown.dueAtMs).toBeUndefined();
    expect(await isSettled(instants.settled(1000, LONG))).toBe(true);
    unknown.done();
    unknown.dueAt(1000); // after done: ignored
    expect(await isSettled(instants.settled(1000, LONG))).toBe(true);
  });
});

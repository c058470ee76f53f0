import { readdirSync, readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';

/**
 * Workflows started before deliveries woke early (main 2df3b65: a timer to the time, then a
 * local activity) must go on under the new code. Their histories, recorded on that code by the
 * real worker and dev server (delivered; moved by an edit; deleted; failed at the time; still
 * waiting on its timer), replay without a nondeterminism error; so does one woken early and
 * delivered by an activity with a 15 s heartbeat timeout (main d953350; now 30 s).
 */
const fixtures = new URL('./fixtures/', import.meta.url);
const recorded = readdirSync(fixtures).filter((name) => name.startsWith('scheduled-message-'));

describe('scheduled-message workflows started on the old code replay on the new', () => {
  it('has the recorded histories', () => {
    expect(recorded.sort()).toEqual(
      ['cancelled', 'delivered', 'failed', 'rescheduled', 'waiting', 'woken-early-delivered'].map(
        (name) => `scheduled-message-${name}.json`,
      ),
    );
  });

  it.each(recorded)('%s', async (name) => {
    // As the client's fetchHistory() answers, with 64-bit numbers as strings.
    const history = temporal.api.history.v1.History.fromObject(
      JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as object,
    );
    await Worker.runReplayHistory(
      {
        workflowBundle: { codePath: inject('workflowBundlePath') },
        // The bundle's outcome-metrics interceptor reports here; a replay counts nothing.
        sinks: { metrics: { workflowEnded: { fn: () => undefined } } },
      },
      history,
    );
  });
});

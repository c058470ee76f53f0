/** Resolves once `condition` holds, checking every 20 ms; fails after `limitMs` (generous: the machine may be busy). */
export async function until(condition: () => boolean, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

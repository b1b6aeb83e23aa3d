// Generous: on a loaded CI machine a poll cycle can take seconds; a passing test returns at once.
const DEFAULT_MS = 20_000;
const POLL_MS = 25;

/** Polls until `check` returns a value (not undefined) and returns it; fails after `ms`. */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, ms = DEFAULT_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Polls until `condition` holds; fails naming `what` after `ms`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what = 'condition', ms = DEFAULT_MS): Promise<void> {
  try {
    await eventually(async () => ((await condition()) ? true : undefined), ms);
  } catch {
    throw new Error(`timed out waiting for ${what}`);
  }
}

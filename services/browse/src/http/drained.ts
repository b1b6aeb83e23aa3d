import type { Writable } from 'node:stream';

/**
 * Resolves once `res` took what was written (`drain`) or went away (`close`, which also follows an
 * error), and leaves no listener behind: `events.once` on both left the loser's listeners (and an
 * `error` one each) on the response until it ended, one set per piece waited for, so a streamed
 * whole list of 110,000 refs set off MaxListenersExceededWarning.
 */
export function drained(res: Pick<Writable, 'destroyed' | 'on' | 'off'>): Promise<void> {
  if (res.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

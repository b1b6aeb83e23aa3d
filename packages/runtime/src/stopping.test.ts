import { describe, expect, it } from '@jest/globals';
import { drainDelay, isStopping, markStopping, MAX_SHUTDOWN_DELAY_MS, onStopping, shutdownDelayMs } from './stopping.js';

describe('stopping', () => {
  it('when the process starts stopping, then every listener hears it once and later ones at once', () => {
    const heard: string[] = [];
    onStopping(() => heard.push('a'));
    const removeB = onStopping(() => heard.push('b'));
    removeB();
    expect(isStopping()).toBe(false);
    markStopping();
    markStopping();
    expect(isStopping()).toBe(true);
    expect(heard).toEqual(['a']);
    onStopping(() => heard.push('late'));
    expect(heard).toEqual(['a', 'late']);
  });

  it('when GITHOST_SHUTDOWN_DELAY_MS is read, then absent is 0, whole milliseconds are taken and anything else names the variable', () => {
    expect(shutdownDelayMs({})).toBe(0);
    expect(shutdownDelayMs({ GITHOST_SHUTDOWN_DELAY_MS: '5000' })).toBe(5000);
    expect(shutdownDelayMs({ GITHOST_SHUTDOWN_DELAY_MS: String(MAX_SHUTDOWN_DELAY_MS) })).toBe(MAX_SHUTDOWN_DELAY_MS);
    for (const bad of ['-1', '5s', '1e3', ' 5', String(MAX_SHUTDOWN_DELAY_MS + 1)]) {
      expect(shutdownDelayMs({ GITHOST_SHUTDOWN_DELAY_MS: bad })).toEqual({ error: expect.stringContaining('GITHOST_SHUTDOWN_DELAY_MS') });
    }
  });

  it('when the drain is waited on, then it ends after its delay, at once when ended early, and at once for 0', async () => {
    const order: string[] = [];
    const long = drainDelay(60_000);
    const short = drainDelay(5);
    void long.elapsed.then(() => order.push('long'));
    void short.elapsed.then(() => order.push('short'));
    await drainDelay(0).elapsed;
    order.push('none');
    await short.elapsed;
    long.end();
    await long.elapsed;
    expect(order).toEqual(['none', 'short', 'long']);
  });
});

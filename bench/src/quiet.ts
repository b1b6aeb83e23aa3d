import { readFileSync } from 'node:fs';
import { descendants } from './rss.js';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * Waits until the service and its children are nearly idle (under 5 % of a core for a second),
 * so background work left by a previous step (after a 200 MB push, git-storage's housekeeping)
 * is not measured as part of the next one. Returns the time waited.
 */
export async function waitForQuiet(pid: number, maxMs = 60_000): Promise<number> {
  const start = Date.now();
  let before = cpuTicks(pid);
  while (Date.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuTicks(pid);
    const spent = now - before;
    before = now;
    // Less than before: a process that was not reaped inside the tree took its time with it;
    // nothing says the rest was idle.
    if (spent >= 0 && spent / TICKS_PER_SECOND < 0.05) break;
  }
  return Date.now() - start;
}

/**
 * utime + stime of the process and its living descendants, with cutime + cstime: what their
 * children that ended took. Without them a git that ends (housekeeping's steps, one after another)
 * takes its seconds out of the sum, and a busy second read as a quiet one.
 */
function cpuTicks(pid: number): number {
  let total = 0;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

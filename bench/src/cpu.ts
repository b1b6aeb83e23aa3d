import { readFileSync } from 'node:fs';

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** utime + stime of the processes (fields 14 and 15 of /proc/<pid>/stat), in milliseconds. */
export function cpuMs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks * TICK_MS;
}

import { readFileSync } from 'node:fs';

/** A process's parent, from `/proc/<pid>/stat` (its fourth field, after the command name in
 *  parentheses, which may itself hold spaces or parentheses); 0 once the process is gone. Linux. */
export function parentPid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

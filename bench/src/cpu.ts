import { readdirSync, readFileSync } from 'node:fs';
import type { NamedProcess } from './rss.js';

const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/**
 * utime + stime of the processes (fields 14 and 15 of /proc/<pid>/stat), in milliseconds; with
 * `exitedChildren`, also cutime + cstime (16 and 17): the children each has waited for, and theirs
 * (git-storage's git processes and hooks, the bench's git client), which exit before any sampling
 * could find them.
 */
export function cpuMs(pids: number[], exitedChildren = false): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      if (exitedChildren) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone
    }
  }
  return ticks * TICK_MS;
}

/** Every process whose command line (NULs as spaces) matches, now. */
export function matchingPids(match: (cmdline: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (match(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '))) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Busy and total jiffies of the whole machine (/proc/stat's first line). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

export interface CpuGroup {
  name: string;
  /** Found again at the end too, so a process that starts during the phase (a pool's new Postgres backend) counts from 0. */
  pids(): number[];
}

/**
 * CPU time of groups of processes over one phase, each with the children it reaped: where a
 * pipeline spread over several processes (services and their git, Postgres backends, the broker,
 * the bench itself and its git client) spends its time, which load on a shared machine changes much
 * less than rates.
 */
export class CpuSplit {
  private start = new Map<string, Map<number, number>>();
  private machine = machineTicks();

  constructor(private readonly groups: CpuGroup[]) {}

  begin(): void {
    this.machine = machineTicks();
    this.start = new Map(this.groups.map((g) => [g.name, new Map(g.pids().map((pid) => [pid, cpuMs([pid], true)]))]));
  }

  /** Milliseconds of CPU per group since begin(), and how busy the machine was (0-1 of all its cores). */
  end(): { groups: Array<{ name: string; ms: number }>; machineBusy: number } {
    const machine = machineTicks();
    const groups = this.groups.map((g) => {
      const before = this.start.get(g.name) ?? new Map<number, number>();
      const pids = new Set([...before.keys(), ...g.pids()]);
      let ms = 0;
      for (const pid of pids) {
        const now = cpuMs([pid], true);
        // a process that exited reads 0 now: its time since begin() is lost, not negative
        if (now > 0) ms += now - (before.get(pid) ?? 0);
      }
      return { name: g.name, ms };
    });
    const total = machine.total - this.machine.total;
    return { groups, machineBusy: total > 0 ? (machine.busy - this.machine.busy) / total : 0 };
  }

  /** The groups of a githost run on Postgres and RabbitMQ: each service process, its database's backends, the broker, this bench. */
  static forService(processes: Array<{ name: string; pid: number }>, databaseName: string | undefined): CpuSplit {
    const groups: CpuGroup[] = processes.filter((p) => p.name !== 'launcher').map((p) => ({ name: p.name, pids: () => [p.pid] }));
    if (databaseName) groups.push({ name: 'Postgres (the run database\'s backends)', pids: () => matchingPids((c) => c.startsWith('postgres: ') && c.includes(` ${databaseName} `)) });
    groups.push({ name: 'RabbitMQ', pids: () => matchingPids((c) => c.includes('beam.smp')) });
    groups.push({ name: 'bench (publisher, receiver, git client)', pids: () => [process.pid] });
    return new CpuSplit(groups);
  }
}

/** `work`'s result and the CPU milliseconds each githost process spent meanwhile, by name (with `children`, also the git processes each reaped). */
export async function withCpu<T>(processes: NamedProcess[], work: () => Promise<T>, children = false): Promise<[T, Record<string, number>]> {
  const before = processes.map((p) => cpuMs([p.pid], children));
  const result = await work();
  return [result, Object.fromEntries(processes.map((p, i) => [p.name, cpuMs([p.pid], children) - before[i]!]))];
}

import { readdirSync, readFileSync } from 'node:fs';
import { fmtMiB } from './stats.js';

/** A githost process: the launcher, or (one process per service) a service's own process. */
export interface NamedProcess {
  name: string;
  pid: number;
}

/** Peak resident memory of githost's processes and their descendants over one phase of a benchmark. */
export interface RssPeaks {
  /** Peak of the largest githost process (each process is held to the per-process targets). */
  rootBytes: number;
  /** Which process that was. */
  rootName: string;
  /** Peak of each githost process, by name. */
  byProcess: Record<string, number>;
  /** The whole process tree at one instant (githost processes + git children). */
  treeBytes: number;
  /** Largest single other descendant, by command name (e.g. `git`). */
  childByCommand: Record<string, number>;
}

/**
 * Samples /proc every `intervalMs`: VmRSS of each githost process (the launcher first, whose
 * descendants are all the others) and of every other descendant. Peaks are kept per phase (reset
 * by `reset()`) and per bench part (`takePart()`), since VmHWM alone would carry start-up and
 * earlier phases along.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peaks: RssPeaks = emptyPeaks();
  private part: RssPeaks = emptyPeaks();
  private processes: NamedProcess[];

  constructor(processes: NamedProcess[], private readonly intervalMs = 200) {
    if (processes.length === 0) throw new Error('RssSampler: no process to sample');
    this.processes = processes;
  }

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** After a restart: the new processes, whose peaks join those of the same names before it. */
  follow(processes: NamedProcess[]): void {
    if (processes.length === 0) throw new Error('RssSampler: no process to sample');
    this.processes = processes;
    this.sample();
  }

  reset(): void {
    this.peaks = emptyPeaks();
    this.sample();
  }

  /** Peaks since the last reset (taking one more sample first). */
  read(): RssPeaks {
    this.sample();
    return copy(this.peaks);
  }

  /** Peaks since the last call (one bench part), independent of the phases' resets. */
  takePart(): RssPeaks {
    this.sample();
    const part = this.part;
    this.part = emptyPeaks();
    return part;
  }

  /** Kernel high-water mark of the largest githost process since it started. */
  highWaterMark(): number {
    return Math.max(0, ...Object.values(this.highWaterMarks()));
  }

  /** Kernel high-water mark of each githost process since it started, by name. */
  highWaterMarks(): Record<string, number> {
    return Object.fromEntries(this.processes.map((p) => [p.name, statusField(p.pid, 'VmHWM') ?? 0]));
  }

  private sample(): void {
    const root = this.processes[0]!.pid;
    if (statusField(root, 'VmRSS') === undefined) return;
    const named = new Set(this.processes.map((p) => p.pid));
    let tree = 0;
    for (const p of this.processes) {
      const rss = statusField(p.pid, 'VmRSS') ?? 0;
      tree += rss;
      for (const peaks of [this.peaks, this.part]) peaks.byProcess[p.name] = Math.max(peaks.byProcess[p.name] ?? 0, rss);
    }
    for (const child of descendants(root)) {
      if (named.has(child)) continue;
      const rss = statusField(child, 'VmRSS') ?? 0;
      tree += rss;
      const name = command(child);
      for (const peaks of [this.peaks, this.part]) peaks.childByCommand[name] = Math.max(peaks.childByCommand[name] ?? 0, rss);
    }
    for (const peaks of [this.peaks, this.part]) {
      peaks.treeBytes = Math.max(peaks.treeBytes, tree);
      for (const [name, bytes] of Object.entries(peaks.byProcess)) {
        if (bytes > peaks.rootBytes) Object.assign(peaks, { rootBytes: bytes, rootName: name });
      }
    }
  }
}

/** "browse 180 MiB": the largest githost process of a phase, named. */
export function fmtLargest(peaks: RssPeaks | undefined): string {
  return peaks && peaks.rootName ? `${peaks.rootName} ${fmtMiB(peaks.rootBytes)}` : '—';
}

function emptyPeaks(): RssPeaks {
  return { rootBytes: 0, rootName: '', byProcess: {}, treeBytes: 0, childByCommand: {} };
}

function copy(p: RssPeaks): RssPeaks {
  return { ...p, byProcess: { ...p.byProcess }, childByCommand: { ...p.childByCommand } };
}

function statusField(pid: number, field: string): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

/** The command's name; for git its subcommand too (`git pack-objects`), since every git child has
 *  the command name `git` and the one to trace is the subcommand that grew. */
function command(pid: number): string {
  try {
    const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    if (name !== 'git') return name;
    const sub = gitSubcommand(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1));
    return sub ? `git ${sub}` : name;
  } catch {
    return '?';
  }
}

/** The first argument that is not one of git's own options (`-c k=v`, `-C dir`, `--git-dir=...`). */
export function gitSubcommand(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** All descendants, found through the parent pid of every process in /proc. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // the command name may hold spaces and parentheses; the ppid follows the last ')'
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // gone already
    }
  }
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Descendants titled `githost <name>` (the launcher's service processes), by that name. */
export function githostDescendants(pid: number): NamedProcess[] {
  const out: NamedProcess[] = [];
  for (const child of descendants(pid)) {
    try {
      const title = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0')[0] ?? '';
      if (title.startsWith('githost ')) out.push({ name: title.slice('githost '.length), pid: child });
    } catch {
      // gone already
    }
  }
  return out;
}

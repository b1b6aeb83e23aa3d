import { readdirSync, readFileSync } from 'node:fs';

/** Peak resident memory of a process and its descendants over one phase of a benchmark. */
export interface RssPeaks {
  /** The service process itself (VmRSS sampled). */
  rootBytes: number;
  /** The whole process tree at one instant (service + git children). */
  treeBytes: number;
  /** Largest single child, by command name (e.g. `git`). */
  childByCommand: Record<string, number>;
}

/**
 * Samples /proc every `intervalMs`: VmRSS of the service and of each descendant. Peaks are kept
 * per phase (reset by `reset()`), since VmHWM alone would carry start-up and earlier phases along.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peaks: RssPeaks = emptyPeaks();

  constructor(private readonly pid: number, private readonly intervalMs = 200) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  reset(): void {
    this.peaks = emptyPeaks();
    this.sample();
  }

  /** Peaks since the last reset (taking one more sample first). */
  read(): RssPeaks {
    this.sample();
    return { ...this.peaks, childByCommand: { ...this.peaks.childByCommand } };
  }

  /** Kernel high-water mark of the service process since it started. */
  highWaterMark(): number {
    return statusField(this.pid, 'VmHWM') ?? 0;
  }

  private sample(): void {
    const root = statusField(this.pid, 'VmRSS');
    if (root === undefined) return;
    let tree = root;
    for (const child of descendants(this.pid)) {
      const rss = statusField(child, 'VmRSS') ?? 0;
      tree += rss;
      const name = command(child);
      this.peaks.childByCommand[name] = Math.max(this.peaks.childByCommand[name] ?? 0, rss);
    }
    this.peaks.rootBytes = Math.max(this.peaks.rootBytes, root);
    this.peaks.treeBytes = Math.max(this.peaks.treeBytes, tree);
  }
}

function emptyPeaks(): RssPeaks {
  return { rootBytes: 0, treeBytes: 0, childByCommand: {} };
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

function command(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
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

import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { writeFileSync } from 'node:fs';
import type { NamedProcess, RssPeaks } from './rss.js';
import { fmtMiB } from './stats.js';

export interface Table {
  title: string;
  header: string[];
  rows: string[][];
}

/** What one benchmark hands back: tables and notes, or the reason it was skipped. */
export interface Section {
  name: string;
  title: string;
  tables: Table[];
  notes: string[];
  skipped?: string;
}

export function markdownTable(t: Table): string {
  const lines = [`| ${t.header.join(' | ')} |`, `|${t.header.map(() => '---').join('|')}|`];
  for (const row of t.rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

/** A plain-text table for the console, columns padded to their widest cell. */
export function printTable(t: Table): void {
  const widths = t.header.map((h, i) => Math.max(h.length, ...t.rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(`\n${t.title}`);
  console.log(line(t.header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const row of t.rows) console.log(line(row));
}

export function machineDescription(): string[] {
  const version = (cmd: string, args: string[]): string => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  };
  return [
    `- CPU: ${version('nproc', [])} cores (${cpus()[0]?.model ?? 'unknown'})`,
    `- memory: ${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    `- ${version('git', ['--version'])}, node ${process.version}`,
    `- kernel: ${version('uname', ['-sr'])}`,
  ];
}

export function writeResults(file: string, sections: Section[], preamble: string[]): void {
  const out: string[] = ['# githost benchmark results', '', `Run: ${new Date().toISOString()}`, '', '## Machine', '', ...machineDescription(), '', ...preamble, ''];
  out.push(...targetSummary(sections));
  for (const s of sections) {
    out.push(`## ${s.title}`, '');
    if (s.skipped) {
      out.push(`Skipped: ${s.skipped}`, '');
      continue;
    }
    for (const t of s.tables) out.push(`### ${t.title}`, '', markdownTable(t), '');
    if (s.notes.length) out.push(...s.notes.map((n) => `- ${n}`), '');
  }
  writeFileSync(file, out.join('\n'));
}

/** Every table row that carries a verdict, gathered at the top so missed targets are seen first. */
function targetSummary(sections: Section[]): string[] {
  const rows: string[][] = [];
  for (const s of sections) {
    if (s.skipped) {
      rows.push([s.title, '—', '—', `skipped: ${s.skipped}`]);
      continue;
    }
    for (const t of s.tables) {
      const met = t.header.findIndex((h) => h === 'met' || h === 'targets met');
      const target = t.header.findIndex((h) => h.startsWith('target') && h !== 'targets met');
      if (met < 0) continue;
      for (const r of t.rows) rows.push([s.title, r[0] ?? '', target >= 0 ? (r[target] ?? '') : t.title, r[met] ?? '']);
    }
  }
  if (rows.length === 0) return [];
  return ['## Targets at a glance', '', markdownTable({ title: '', header: ['bench', 'case', 'target', 'met'], rows }), ''];
}

const PROCESS_LIMIT = 300 * 1024 * 1024;

/** Every githost process's peak over one bench part, beside its high-water mark since start. */
export function processPeaksTable(processes: NamedProcess[], peaks: RssPeaks, highWaterMarks: Record<string, number>): Table {
  const rows = processes.map((p) => {
    const peak = peaks.byProcess[p.name];
    return [p.name, String(p.pid), fmtMiB(peak), fmtMiB(highWaterMarks[p.name]), peak === undefined ? '—' : peak < PROCESS_LIMIT ? 'yes' : 'NO'];
  });
  const others = Object.entries(peaks.childByCommand).sort((a, b) => b[1] - a[1])[0];
  if (others) rows.push([`largest other child (${others[0]})`, '—', fmtMiB(others[1]), '—', '—']);
  rows.push(['whole process tree at once', '—', fmtMiB(peaks.treeBytes), '—', '—']);
  return { title: 'Peak RSS of every process during this part', header: ['process', 'pid', 'peak RSS', 'high-water mark since start (VmHWM)', 'under 300 MiB'], rows };
}

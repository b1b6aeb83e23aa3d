import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchContext } from './context.js';
import { createRepo, gitUrl } from './api.js';
import { git } from './git.js';
import { workDir } from './paths.js';
import type { Section } from './report.js';
import { fmtMs, fmtRatio, nowMs, summarize, verdict } from './stats.js';

/** One decimal: quick-mode archives are a few MiB. */
const fmtMiB = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };
const ARCHIVE_TARGET = 0.9;
const PUSH_TARGET = 1.3;

/** A rule with every check a merge would make, so the push runs the whole policy path. */
const RULE = { allow_force_pushes: false, allow_deletions: false, required_approvals: 1, required_status_checks: ['ci/build', 'ci/test'], push: 'write' };

/**
 * The `.tar.gz` archive of the bench repository's head through the gateway vs
 * `git archive --format=tar | gzip -n` run directly in the same run (throughput), and a push with
 * protection checks (a rule on the pushed branch) vs the same push over `file://`.
 */
export async function benchArchivePush(ctx: BenchContext): Promise<Section> {
  const repo = await ctx.repo();
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'archive-push', title: 'Archives and protected pushes', tables: [], notes: [], skipped: skip };
  const runs = Number(ctx.env.BENCH_ARCHIVE_RUNS ?? (ctx.quick ? 3 : 2));
  const notes: string[] = [`repository: ${repo.commits.toLocaleString('en-US')} commits, ${repo.files.toLocaleString('en-US')} files; medians of ${runs} runs, one after the other`];
  const service = await ctx.service();
  const user = await ctx.user();

  // Archives: the hosted copy of the bench repository (pushed once per run, by clone-push or here).
  const hosted = await ctx.hostedRepo(async (url) => {
    await git(['push', '-q', '--mirror', url], { cwd: repo.path, env: QUIET_GIT });
  });
  const archiveUrl = `${service.url}/api/repos/${user.username}/${hosted.name}/archive/main.tar.gz`;
  const raw: number[] = [];
  const host: number[] = [];
  let rawBytes = 0;
  let hostBytes = 0;
  let etagOk = true;
  for (let i = 0; i < runs; i++) {
    const r = await timedBytes(() => shellPipe('git', ['--git-dir', repo.path, 'archive', '--format=tar', `--prefix=${hosted.name}-main/`, repo.head], 'gzip', ['-n']));
    raw.push(r.ms);
    rawBytes = r.bytes;
    const h = await timedBytes(() => download(archiveUrl, user.token));
    host.push(h.ms);
    hostBytes = h.bytes;
    etagOk &&= h.etag === `"${repo.head}.tar.gz"`;
  }
  if (!etagOk) notes.push(`WARNING: the archive's ETag does not name ${repo.head}`);
  const rawMs = summarize(raw).p50;
  const hostMs = summarize(host).p50;
  const rawRate = rawBytes / (rawMs / 1000);
  const hostRate = hostBytes / (hostMs / 1000);
  notes.push(`archive sizes: git archive | gzip -n ${fmtMiB(rawBytes)}, githost (git's own gzip, same level) ${fmtMiB(hostBytes)}; throughput is archive bytes per second, so the ratio compares the time to deliver the same tree`);

  // Protected push: a fresh repository whose main carries a rule, pushed --mirror like the clone-push part's row.
  const scratch = mkdtempSync(join(workDir('scratch'), 'archive-push-'));
  let rawPush: number | undefined;
  let hostPush: number | undefined;
  try {
    const rawPath = join(scratch, 'raw.git');
    await git(['init', '-q', '--bare', rawPath]);
    rawPush = await time(() => git(['push', '-q', '--mirror', `file://${rawPath}`], { cwd: repo.path, env: QUIET_GIT }));
    const { name } = await createRepo(user, `protected-${Date.now().toString(36)}`);
    const rule = await user.api.request('PUT', `/api/repos/${user.username}/${name}/branch-protections/main`, RULE);
    if (rule.status !== 200 && rule.status !== 201) notes.push(`could not set the rule (PUT branch-protections: ${rule.status} ${JSON.stringify(rule.body)}); the push ran with the default branch protection only`);
    else notes.push(`rule on main: ${JSON.stringify(RULE)}`);
    hostPush = await time(() => git(['push', '-q', '--mirror', gitUrl(service.url, user, name)], { cwd: repo.path, env: QUIET_GIT }));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  return {
    name: 'archive-push',
    title: 'Archives and protected pushes',
    tables: [
      {
        title: `archive .tar.gz of main's head (target: githost throughput >= ${ARCHIVE_TARGET} x git archive | gzip)`,
        header: ['contestant', 'time (median)', 'throughput', 'githost / raw throughput', 'target met'],
        rows: [
          ['git archive --format=tar | gzip -n', fmtMs(rawMs), `${fmtMiB(rawRate)}/s`, '', ''],
          ['GET .../archive/main.tar.gz (gateway)', fmtMs(hostMs), `${fmtMiB(hostRate)}/s`, fmtRatio(hostRate, rawRate), verdict(hostRate / rawRate >= ARCHIVE_TARGET)],
        ],
      },
      {
        title: `push --mirror with protection checks (a rule on main) vs file:// (target: ratio <= ${PUSH_TARGET})`,
        header: ['operation', 'raw git (file://)', 'githost (HTTP, rule on main)', 'ratio', 'target met'],
        rows: [['push --mirror', fmtMs(rawPush), fmtMs(hostPush), fmtRatio(hostPush, rawPush), hostPush === undefined || rawPush === undefined ? '—' : verdict(hostPush / rawPush <= PUSH_TARGET)]],
      },
    ],
    notes,
  };
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = nowMs();
  await fn();
  return nowMs() - start;
}

async function timedBytes<T extends { bytes: number }>(fn: () => Promise<T>): Promise<T & { ms: number }> {
  const start = nowMs();
  const r = await fn();
  return { ...r, ms: nowMs() - start };
}

/** `a | b`, counting b's output bytes (discarded, as a download to /dev/null would). */
function shellPipe(cmd: string, args: string[], cmd2: string, args2: string[]): Promise<{ bytes: number }> {
  return new Promise((resolve, reject) => {
    const first = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    const second = spawn(cmd2, args2, { stdio: ['pipe', 'pipe', 'inherit'] });
    first.stdout.pipe(second.stdin);
    let bytes = 0;
    second.stdout.on('data', (b: Buffer) => (bytes += b.length));
    first.on('error', reject);
    second.on('error', reject);
    second.on('close', (code) => (code === 0 ? resolve({ bytes }) : reject(new Error(`${cmd} | ${cmd2} exited ${code}`))));
  });
}

/** Streams the archive, counting bytes without keeping them. */
async function download(url: string, token: string): Promise<{ bytes: number; etag: string | null }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200 || !res.body) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { bytes, etag: res.headers.get('etag') };
}

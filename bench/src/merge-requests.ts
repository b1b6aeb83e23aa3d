import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Api, createUser } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { waitForQuiet } from './quiet.js';
import { hostedRepoPath } from './hosted-path.js';
import { fetchOnce, sequentialLatency } from './load.js';
import { buildMergeFixtures, rawMerge, type MergePair } from './merge-fixtures.js';
import { workDir } from './paths.js';
import type { Section, Table } from './report.js';
import { fmtLargest } from './rss.js';
import { fmtMs, fmtRatio, nowMs, summarize, verdict, type Summary } from './stats.js';

const median = (xs: number[]): number => summarize(xs).p50;

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };

/** Merge request detail by diff size, and merge latency beside the bare git commands. */
export async function benchMergeRequests(ctx: BenchContext): Promise<Section> {
  const repo = await ctx.repo();
  const quick = ctx.quick;
  const merges = Number(process.env.BENCH_MERGES ?? (quick ? 8 : 30));
  const notes: string[] = [];
  const scratch = mkdtempSync(join(workDir('scratch'), 'merge-requests-'));
  try {
    const fixtures = join(scratch, 'fixtures.git');
    const pairs = await buildMergeFixtures(repo, fixtures, merges);
    // The same pairs again, in a repository that writes as durably as a hosted one: the raw
    // commands there do the fsyncs githost's own git commands do (like for like).
    const durableFixtures = join(scratch, 'fixtures-durable.git');
    await buildMergeFixtures(repo, durableFixtures, merges);
    const skip = ctx.serviceUnavailable();
    const compares: CompareRow[] = [];
    const detail: Array<{ files: number; branch: string; svc?: Summary; svcError?: string; entries?: number; truncated?: boolean; rss?: string; raw: Summary }> = [];
    const svcMerge: Record<MergePair['kind'], number[]> = { ff: [], 'three-way': [] };
    const rawMerges: Record<MergePair['kind'], number[]> = { ff: [], 'three-way': [] };
    const durableMerges: Record<MergePair['kind'], number[]> = { ff: [], 'three-way': [] };
    let durability = 'git defaults (the hosted repository was not read)';
    const protectedMerges: number[] = [];
    let hostedUrl = '';
    let mergeRss: string | undefined;
    let api: Api | undefined;
    let base = '';
    let anonBase = '';
    let service: Awaited<ReturnType<BenchContext['service']>> | undefined;
    let rawRead = repo.path;
    if (skip) notes.push(`githost side skipped: ${skip}`);
    else {
      service = await ctx.service();
      const hosted = await ctx.hostedRepo((url) => git(['push', '-q', '--mirror', url], { cwd: repo.path, env: QUIET_GIT }).then());
      const user = await ctx.user();
      api = user.api;
      base = `/api/repos/${user.username}/${hosted.name}`;
      anonBase = `${service.url}${base}`;
      rawRead = hostedRepoPath(service.dataDir, hosted.id, repo.path);
      durability = await copyDurability(rawRead, durableFixtures);
      await git(['push', '-q', hosted.url, 'refs/heads/bench/*:refs/heads/bench/*'], { cwd: fixtures, env: QUIET_GIT });
      hostedUrl = hosted.url;
      const waited = await waitForQuiet(service.pid);
      if (waited > 1500) notes.push(`waited ${fmtMs(waited)} for the service to go idle (background work after the pushes) before measuring`);
      const probe = await api.request('GET', `${base}/merge-requests`);
      if (probe.status !== 200) {
        notes.push(`githost side skipped: GET merge-requests answered ${probe.status} ${JSON.stringify(probe.body).slice(0, 200)}`);
        api = undefined;
      }
    }

    for (const { branch, files } of repo.diffBranches) {
      const samples = quick ? 5 : files <= 50 ? 30 : files <= 500 ? 15 : 8;
      const row: (typeof detail)[number] = { files, branch, raw: await timeRaw(samples, () => git(['diff-tree', '-r', '-p', '--numstat', '--end-of-options', 'refs/heads/main', `refs/heads/${branch}`], { cwd: rawRead }).then()) };
      detail.push(row);
      if (!api || !service) continue;
      ctx.log(`merge-requests: detail with ${files} files`);
      const created = await api.request<{ number?: number }>('POST', `${base}/merge-requests`, { title: `diff of ${files} files`, source_branch: branch, target_branch: 'main' });
      if (created.status !== 201 || typeof created.body.number !== 'number') {
        row.svcError = `create: HTTP ${created.status}`;
        continue;
      }
      const url = `${anonBase}/merge-requests/${created.body.number}`;
      const first = await fetchOnce(url);
      if (first.status !== 200) {
        row.svcError = `HTTP ${first.status}`;
        continue;
      }
      const body = JSON.parse(first.body) as { diff?: unknown[]; diff_truncated?: boolean };
      row.entries = body.diff?.length;
      row.truncated = body.diff_truncated === true;
      service.rss.reset();
      row.svc = (await sequentialLatency(url, samples)).summary;
      row.rss = fmtLargest(service.rss.read());
    }

    // Compare of the largest diff branch (browse: counts, commits, diff from the merge base).
    const largest = repo.diffBranches.reduce<(typeof repo.diffBranches)[number] | undefined>((a, b) => (a && a.files >= b.files ? a : b), undefined);
    const smallest = repo.diffBranches.reduce<(typeof repo.diffBranches)[number] | undefined>((a, b) => (a && a.files <= b.files ? a : b), undefined);
    if (largest && smallest && service) {
      ctx.log(`merge-requests: compare with ${largest.files} files`);
      // A compare of another pair first: the first timed request then pays for the diff, not for
      // starting the repository's cat-file process or loading its refs (the detail rows are warm too).
      await fetchOnce(`${anonBase}/compare/main...${smallest.branch}`);
      compares.push(await benchCompare(`${anonBase}/compare/main...${largest.branch}`, largest, rawRead, quick ? 5 : 8, service));
    }

    const timeRawMerge = async (pair: MergePair) => {
      let start = nowMs();
      await rawMerge(fixtures, pair);
      rawMerges[pair.kind].push(nowMs() - start);
      start = nowMs();
      await rawMerge(durableFixtures, pair);
      durableMerges[pair.kind].push(nowMs() - start);
    };
    if (api && service) {
      // The protected copies of the pairs go up first: the raw merges below move the fixtures' targets.
      await git(['push', '-q', hostedUrl, 'refs/heads/bench/ff-*:refs/heads/protected/ff-*'], { cwd: fixtures, env: QUIET_GIT });
      service.rss.reset();
      for (const kind of ['ff', 'three-way'] as const) {
        ctx.log(`merge-requests: ${merges} ${kind} merges through githost, each followed by the raw git commands for the same pair`);
        for (const pair of pairs.filter((p) => p.kind === kind)) {
          const mr = await api.expect<{ number: number }>(201, 'POST', `${base}/merge-requests`, { title: `merge ${pair.source}`, source_branch: pair.source, target_branch: pair.target });
          const start = nowMs();
          const res = await api.request<{ strategy?: string }>('POST', `${base}/merge-requests/${mr.number}/merge`);
          svcMerge[kind].push(nowMs() - start);
          const expected = kind === 'ff' ? 'fast-forward' : 'merge-commit';
          if (res.status !== 200 || res.body.strategy !== expected) throw new Error(`merge of ${pair.source}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
          // Paired in time: on a shared machine the load changes by the minute, and a ratio of two
          // medians taken minutes apart measured the load, not githost.
          await timeRawMerge(pair);
        }
      }
      mergeRss = fmtLargest(service.rss.read());
      ctx.log(`merge-requests: ${merges} protected fast-forward merges through githost`);
      protectedMerges.push(...(await benchProtectedMerges(api, new Api(service.url, service.adminToken), base, pairs.filter((p) => p.kind === 'ff'))));
    } else {
      for (const pair of pairs) await timeRawMerge(pair);
    }

    const detailTarget = (files: number): number => (files <= 50 ? 60 : files <= 500 ? 700 : 2000);
    const detailTable: Table = {
      title: 'GET merge request detail (diff computed at request time) vs `git diff-tree -r -p --numstat` spawned',
      header: ['merge request', 'diff entries returned', 'githost p50', 'githost p95', 'git diff-tree p50', 'ratio p50', 'service peak RSS', 'target p50', 'met'],
      rows: detail.map((d) => [
        `detail, ${d.files} files`,
        d.svcError ?? (d.entries === undefined ? '—' : `${d.entries}${d.truncated ? ' (truncated)' : ''}`),
        fmtMs(d.svc?.p50),
        fmtMs(d.svc?.p95),
        fmtMs(d.raw.p50),
        fmtRatio(d.svc?.p50, d.raw.p50),
        d.rss ?? '—',
        `< ${fmtMs(detailTarget(d.files))}`,
        d.svc ? verdict(d.svc.p50 < detailTarget(d.files)) : '—',
      ]),
    };
    const compareTable: Table = {
      title: 'GET compare/main...{branch} (merge base, counts, commits, diff from the merge base) vs `git rev-list --left-right --count` + `git diff-tree -r -p --numstat` spawned',
      header: ['compare', 'diff entries returned', 'githost first (cold)', 'githost p50', 'githost p95', 'raw git p50', 'ratio p50', 'service peak RSS', 'target', 'met'],
      rows: compares.map((c) => [
        `compare, ${c.files} files`,
        c.error ?? (c.entries === undefined ? '—' : `${c.entries}${c.truncated ? ' (truncated)' : ''}`),
        fmtMs(c.coldMs),
        fmtMs(c.svc?.p50),
        fmtMs(c.svc?.p95),
        fmtMs(c.raw.p50),
        fmtRatio(c.svc?.p50, c.raw.p50),
        c.rss ?? '—',
        '< 2.00 s (first and p50)',
        c.svc && c.coldMs !== undefined ? verdict(c.coldMs < 2000 && c.svc.p50 < 2000) : '—',
      ]),
    };
    notes.push('compare: "first" is the first request for that pair (nothing of it cached in browse; one compare of another pair warmed the processes before); later ones may be answered from browse\'s object cache, keyed by the two commit ids');
    const mergeRow = (kind: MergePair['kind'], label: string, target: number): string[] => {
      const s = svcMerge[kind].length ? summarize(svcMerge[kind]) : undefined;
      const r = summarize(rawMerges[kind]);
      const d = summarize(durableMerges[kind]);
      // Each githost merge and its raw commands ran back to back: the median of those pairs'
      // ratios follows the load less than a ratio of two medians does.
      const paired = (raw: number[]) => (s ? fmtRatio(median(svcMerge[kind].map((t, i) => t / raw[i]!)), 1) : '—');
      return [label, String(rawMerges[kind].length), fmtMs(s?.p50), fmtMs(s?.p99), fmtMs(r.p50), fmtMs(r.p99), fmtRatio(s?.p50, r.p50), paired(rawMerges[kind]), fmtMs(d.p50), fmtRatio(s?.p50, d.p50), paired(durableMerges[kind]), `< ${target} ms`, s ? verdict(s.p50 < target) : '—'];
    };
    const protectedRow = (): string[] => {
      const s = protectedMerges.length ? summarize(protectedMerges) : undefined;
      const r = summarize(rawMerges.ff);
      const d = summarize(durableMerges.ff);
      return ['fast-forward, protected (1 approval, 2 status checks)', String(protectedMerges.length), fmtMs(s?.p50), fmtMs(s?.p99), fmtMs(r.p50), fmtMs(r.p99), fmtRatio(s?.p50, r.p50), '—', fmtMs(d.p50), fmtRatio(s?.p50, d.p50), '—', '< 100 ms', s ? verdict(s.p50 < 100) : '—'];
    };
    const mergeTable: Table = {
      title: 'POST merge vs the same git commands run by hand',
      header: ['merge', 'merges', 'githost p50', 'githost p99', 'raw git p50', 'raw git p99', 'ratio p50', 'median of paired ratios', 'raw git, hosted fsync settings p50', 'ratio p50 to it (like for like)', 'median of paired ratios to it', 'target p50', 'met'],
      rows: [mergeRow('ff', 'fast-forward', 60), mergeRow('three-way', 'three-way (merge-tree)', 100), protectedRow()],
    };
    notes.push(
      'raw fast-forward: `rev-parse` both tips, `merge-base --is-ancestor`, `update-ref <ref> <new> <old>` (the compare-and-swap ref update); raw three-way adds `merge-tree --write-tree` and `commit-tree` (each a spawned git, as git-storage would run them); each githost merge is followed at once by the raw commands for the same pair, so both sides of a ratio see the same load',
      `"raw git" runs in a repository with git's defaults, which fsync neither refs nor loose objects; "raw git, hosted fsync settings" runs the same commands on the same pairs in a repository given the hosted repository's ${durability}, so its \`update-ref\`, \`merge-tree --write-tree\` and \`commit-tree\` write as durably as githost's own do; neither baseline journals a push event or records a merge anywhere`,
      'githost merge time is the POST .../merge round trip through the gateway (auth, database transaction with the outbox row, git-storage)',
    );
    if (mergeRss !== undefined) notes.push(`service peak RSS during the merges (largest process): ${mergeRss}`);
    return { name: 'merge-requests', title: 'Merge requests', tables: [detailTable, compareTable, mergeTable], notes };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The same fast-forward pairs under `protected/` (pushed by the caller), whose rule requires one approval and two status
 * checks: each merge request gets both statuses and a writer's approval first, then only the
 * merge is timed (the gate reads the rule, the latest statuses and the reviews).
 */
async function benchProtectedMerges(api: Api, admin: Api, base: string, pairs: MergePair[]): Promise<number[]> {
  const reviewer = await createUser(admin, `benchreviewer${Date.now().toString(36)}`);
  const res = await api.request('PUT', `${base}/collaborators/${reviewer.username}`, { permission: 'write' });
  if (res.status !== 204) throw new Error(`collaborator: HTTP ${res.status}`);
  await api.expect(201, 'PUT', `${base}/branch-protections/${encodeURIComponent('protected/ff-target-*')}`, { required_approvals: 1, required_status_checks: ['ci/build', 'ci/test'] });
  const times: number[] = [];
  for (const pair of pairs) {
    const source = pair.source.replace(/^bench\//, 'protected/');
    const target = pair.target.replace(/^bench\//, 'protected/');
    const mr = await api.expect<{ number: number; source_sha: string }>(201, 'POST', `${base}/merge-requests`, { title: `merge ${source}`, source_branch: source, target_branch: target });
    for (const context of ['ci/build', 'ci/test']) await api.expect(201, 'POST', `${base}/statuses/${mr.source_sha}`, { state: 'success', context });
    await reviewer.api.expect(201, 'POST', `${base}/merge-requests/${mr.number}/reviews`, { event: 'approve' });
    const start = nowMs();
    const merged = await api.request<{ strategy?: string }>('POST', `${base}/merge-requests/${mr.number}/merge`);
    times.push(nowMs() - start);
    if (merged.status !== 200 || merged.body.strategy !== 'fast-forward') throw new Error(`protected merge of ${source}: HTTP ${merged.status} ${JSON.stringify(merged.body)}`);
  }
  return times;
}

/** The hosted repository's fsync settings, copied onto `target`; described for the notes. */
async function copyDurability(hosted: string, target: string): Promise<string> {
  const settings: string[] = [];
  for (const key of ['core.fsync', 'core.fsyncMethod']) {
    const value = (await git(['config', '--get', key], { cwd: hosted, allowFail: true })).stdout.toString().trim();
    if (!value) continue;
    await git(['config', key, value], { cwd: target });
    settings.push(`\`${key}=${value}\``);
  }
  return settings.length > 0 ? settings.join(' and ') : 'settings (none set: git defaults)';
}

interface CompareRow {
  files: number;
  raw: Summary;
  coldMs?: number;
  svc?: Summary;
  entries?: number;
  truncated?: boolean;
  rss?: string;
  error?: string;
}

async function benchCompare(url: string, branch: { branch: string; files: number }, rawRead: string, samples: number, service: { rss: { reset(): void; read(): Parameters<typeof fmtLargest>[0] } }): Promise<CompareRow> {
  const raw = await timeRaw(samples, async () => {
    await git(['rev-list', '--left-right', '--count', '--end-of-options', `refs/heads/main...refs/heads/${branch.branch}`], { cwd: rawRead });
    await git(['diff-tree', '-r', '-p', '--numstat', '--end-of-options', 'refs/heads/main', `refs/heads/${branch.branch}`], { cwd: rawRead });
  });
  const row: CompareRow = { files: branch.files, raw };
  service.rss.reset();
  const start = nowMs();
  const first = await fetchOnce(url);
  row.coldMs = nowMs() - start;
  if (first.status !== 200) {
    row.error = `HTTP ${first.status} ${first.body.slice(0, 120)}`;
    return row;
  }
  const body = JSON.parse(first.body) as { diff?: unknown[]; diff_truncated?: boolean };
  row.entries = body.diff?.length;
  row.truncated = body.diff_truncated === true;
  row.svc = (await sequentialLatency(url, samples)).summary;
  row.rss = fmtLargest(service.rss.read());
  return row;
}

async function timeRaw(samples: number, fn: () => Promise<void>): Promise<Summary> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const start = nowMs();
    await fn();
    times.push(nowMs() - start);
  }
  return summarize(times);
}

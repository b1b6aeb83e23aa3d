import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ensureRenovateInstalled, runRenovate } from '@githost/test-support/renovate';
import { Api, gitUrl, type BenchUser } from './api.js';
import type { BenchContext } from './context.js';
import { cpuMs, withCpu } from './cpu.js';
import { git } from './git.js';
import { fetchOnce, loadTest, type LoadResult } from './load.js';
import { workDir } from './paths.js';
import type { Section, Table } from './report.js';
import type { NamedProcess } from './rss.js';
import { fmtMs, fmtNum, fmtRatio, nowMs, verdict } from './stats.js';

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@bench.example', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@bench.example' };
const OPEN_PULLS = 50;
const RENOVATE_DEPS = 20;

/**
 * The Gitea-compatible API (services/gitea-api) against githost's own endpoints for the same
 * data, in the same run: the open pull requests of a repository with 50 open merge requests
 * (`/api/v1/…/pulls?state=open&limit=50` vs `/api/…/merge-requests?state=open`) and one file
 * (`/api/v1/…/contents/{file}` vs `/api/…/blob/main/{file}`), each under 10 connections in
 * alternating slices, target >= 0.8x; githost's CPU per answer by process says where the time
 * goes (gitea-api calls githost's API through the gateway, so each answer crosses it twice).
 * Then one Renovate 39 run (test/renovate) on a repository with 20 dependencies, each resolved
 * from tags on the same githost: its wall time, githost's CPU and Renovate's own.
 */
export async function benchGitea(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'gitea', title: 'Gitea-compatible API', tables: [], notes: [], skipped: skip };
  const service = await ctx.service();
  const user = await ctx.user();
  const notes: string[] = [];
  const version = await fetchOnce(`${service.url}/api/v1/version`);
  if (version.status !== 200) throw new Error(`GET /api/v1/version: HTTP ${version.status} (the gitea-api service has not landed?)`);

  // A repository with a 4 KiB file and 50 open merge requests (one branch each, as Renovate makes them).
  const repo = `gitea${randomBytes(3).toString('hex')}`;
  await user.api.expect(201, 'POST', '/api/repos', { name: repo });
  const file = 'src/module.ts';
  const scratch = mkdtempSync(join(workDir('scratch'), 'gitea-'));
  try {
    const work = join(scratch, 'work');
    mkdirSync(join(work, 'src'), { recursive: true });
    writeFileSync(join(work, file), Array.from({ length: 128 }, (_, i) => `export const value${String(i).padStart(3, '0')} = ${i}; // padding\n`).join(''));
    await git(['init', '-q', '-b', 'main'], { cwd: work, env: QUIET_GIT });
    await git(['add', '-A'], { cwd: work, env: QUIET_GIT });
    await git(['commit', '-q', '-m', 'base'], { cwd: work, env: QUIET_GIT });
    const branches: string[] = [];
    for (let i = 0; i < OPEN_PULLS; i++) {
      const branch = `feature-${i}`;
      await git(['checkout', '-q', '-b', branch, 'main'], { cwd: work, env: QUIET_GIT });
      writeFileSync(join(work, `change-${i}.txt`), `change ${i}\n`);
      await git(['add', '-A'], { cwd: work, env: QUIET_GIT });
      await git(['commit', '-q', '-m', `change ${i}`], { cwd: work, env: QUIET_GIT });
      branches.push(branch);
    }
    await git(['push', '-q', gitUrl(service.url, user, repo), 'main', ...branches], { cwd: work, env: QUIET_GIT });
    for (const branch of branches) await user.api.expect(201, 'POST', `/api/repos/${user.username}/${repo}/merge-requests`, { title: `Change ${branch}`, source_branch: branch, target_branch: 'main' });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const auth = { authorization: `token ${user.token}` };
  const pairs = [
    { name: `open pull requests (${OPEN_PULLS})`, gitea: `/api/v1/repos/${user.username}/${repo}/pulls?state=open&limit=${OPEN_PULLS}`, own: `/api/repos/${user.username}/${repo}/merge-requests?state=open` },
    { name: 'one file (4 KiB)', gitea: `/api/v1/repos/${user.username}/${repo}/contents/${file}?ref=main`, own: `/api/repos/${user.username}/${repo}/blob/main/${file}` },
  ];
  for (const p of pairs) {
    for (const path of [p.gitea, p.own]) {
      const res = await fetchOnce(service.url + path, auth);
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
    }
    const count = p.gitea.includes('/pulls') ? (JSON.parse((await fetchOnce(service.url + p.gitea, auth)).body) as unknown[]).length : 1;
    if (count !== (p.gitea.includes('/pulls') ? OPEN_PULLS : 1)) throw new Error(`${p.gitea}: ${count} pull requests, expected ${OPEN_PULLS}`);
  }

  const slices = ctx.quick ? 2 : 4;
  const seconds = ctx.quick ? 3 : 5;
  const connections = 10;
  const throughput: Table = {
    title: `Requests/s under ${connections} connections, ${slices} alternating slices of ${seconds} s each (same data, same run)`,
    header: ['request', 'Gitea API req/s', 'githost API req/s', 'ratio', 'Gitea p50', 'githost p50', 'non-200', 'target', 'met'],
    rows: [],
  };
  const cpuRows: Array<{ label: string; load: LoadTotals; cpu: Record<string, number> }> = [];
  for (const p of pairs) {
    ctx.log(`gitea: ${p.name}`);
    const gitea = new LoadTotals();
    const own = new LoadTotals();
    for (let i = 0; i < slices; i++) {
      gitea.add(...(await withCpu(service.processes, () => loadTest(service.url + p.gitea, { connections, seconds, headers: auth }))));
      own.add(...(await withCpu(service.processes, () => loadTest(service.url + p.own, { connections, seconds, headers: auth }))));
    }
    const ratio = gitea.rps / own.rps;
    throughput.rows.push([p.name, fmtNum(gitea.rps), fmtNum(own.rps), fmtRatio(gitea.rps, own.rps), fmtMs(gitea.p50), fmtMs(own.p50), String(gitea.bad + own.bad), '>= 0.8x', verdict(ratio >= 0.8 && gitea.bad + own.bad === 0)]);
    cpuRows.push({ label: `${p.name}, Gitea API`, load: gitea, cpu: gitea.cpu }, { label: `${p.name}, githost API`, load: own, cpu: own.cpu });
  }
  const names = [...new Set(cpuRows.flatMap((r) => Object.keys(r.cpu)))].filter((n) => cpuRows.some((r) => (r.cpu[n] ?? 0) > 0));
  names.sort((a, b) => (cpuRows[0]!.cpu[b] ?? 0) - (cpuRows[0]!.cpu[a] ?? 0));
  const per = (ms: number | undefined, answers: number) => (ms === undefined || answers === 0 ? '—' : fmtNum((ms * 1000) / answers));
  const cpu: Table = {
    title: 'githost CPU µs per answer under that load, by process (user + system time over the slices ÷ answers)',
    header: ['request', 'all', ...names],
    rows: cpuRows.map((r) => [r.label, per(Object.values(r.cpu).reduce((a, b) => a + b, 0), r.load.answers), ...names.map((n) => per(r.cpu[n], r.load.answers))]),
  };

  // BENCH_GITEA_RENOVATE=0: the throughput rows alone (a before/after pair of runs of the pull
  // request list with GITHOST_EDGE_KEEPS_PULLS=false and without, docs/decisions/pulls-at-the-edge.md).
  const renovate = ctx.env.BENCH_GITEA_RENOVATE === '0' ? { table: undefined, notes: ['Renovate run skipped (BENCH_GITEA_RENOVATE=0)'] } : await renovateRun(ctx, service.url, service.processes, user);
  notes.push(
    `the gateway ${ctx.env.GITHOST_EDGE_KEEPS_PULLS === 'false' ? 'did not keep' : 'kept'} the Gitea pull request list at its edge (GITHOST_EDGE_KEEPS_PULLS=${ctx.env.GITHOST_EDGE_KEEPS_PULLS ?? 'true'})`,
    `each slice is autocannon for ${seconds} s; req/s is answers over the summed slice time; p50 is the median of the slices' medians`,
    `the Gitea API answers through gitea-api, which calls githost's own endpoint through the gateway with the caller's token (services/gitea-api/README.md), so each of its answers crosses the gateway twice and is serialised twice: the CPU table shows the extra cost by process`,
    ...renovate.notes,
  );
  return { name: 'gitea', title: 'Gitea-compatible API', tables: renovate.table ? [throughput, cpu, renovate.table] : [throughput, cpu], notes };
}

/** One Renovate run on a fresh repository whose package.json pins 20 dependencies at 1.0.0, each with tags up to 1.2.0 on githost. */
async function renovateRun(ctx: BenchContext, baseUrl: string, processes: NamedProcess[], owner: BenchUser): Promise<{ table: Table; notes: string[] }> {
  ensureRenovateInstalled();
  const admin = new Api(baseUrl, (await ctx.service()).adminToken);
  const botName = `renovate${randomBytes(3).toString('hex')}`;
  await admin.expect(201, 'POST', '/api/admin/users', { username: botName, email: `${botName}@bench.example` });
  const { token: botToken } = await admin.expect<{ token: string }>(201, 'POST', `/api/admin/users/${botName}/tokens`, { name: 'renovate' });
  const app = `deps${randomBytes(3).toString('hex')}`;
  const lib = `lib${randomBytes(3).toString('hex')}`;
  await owner.api.expect(201, 'POST', '/api/repos', { name: app });
  await owner.api.expect(201, 'POST', '/api/repos', { name: lib });
  await owner.api.expect(204, 'PUT', `/api/repos/${owner.username}/${app}/collaborators/${botName}`, { permission: 'write' });
  const scratch = mkdtempSync(join(workDir('scratch'), 'renovate-'));
  try {
    const libWork = join(scratch, 'lib');
    mkdirSync(libWork);
    await git(['init', '-q', '-b', 'main'], { cwd: libWork, env: QUIET_GIT });
    for (const v of ['1.0.0', '1.1.0', '1.2.0']) {
      writeFileSync(join(libWork, 'index.js'), `module.exports = '${v}';\n`);
      await git(['add', '-A'], { cwd: libWork, env: QUIET_GIT });
      await git(['commit', '-q', '-m', v], { cwd: libWork, env: QUIET_GIT });
      await git(['tag', v], { cwd: libWork, env: QUIET_GIT });
    }
    await git(['push', '-q', gitUrl(baseUrl, owner, lib), 'main', '--tags'], { cwd: libWork, env: QUIET_GIT });
    const appWork = join(scratch, 'app');
    mkdirSync(appWork);
    const deps = Object.fromEntries(Array.from({ length: RENOVATE_DEPS }, (_, i) => [`dep-${String(i + 1).padStart(2, '0')}`, '1.0.0']));
    writeFileSync(join(appWork, 'package.json'), `${JSON.stringify({ name: app, private: true, dependencies: deps }, null, 2)}\n`);
    writeFileSync(
      join(appWork, 'renovate.json'),
      `${JSON.stringify({
        enabledManagers: ['custom.regex'],
        customManagers: [{ customType: 'regex', fileMatch: ['^package\\.json$'], matchStrings: ['"(?<depName>dep-\\d+)": "(?<currentValue>[^"]+)"'], packageNameTemplate: `${baseUrl}/${owner.username}/${lib}.git`, datasourceTemplate: 'git-tags', versioningTemplate: 'semver' }],
        fetchChangeLogs: 'off',
        // Renovate 39's defaults open 2 pull requests an hour (prHourlyLimit) and 10 at once: the run is to propose all 20.
        prHourlyLimit: 0,
        prConcurrentLimit: 0,
      }, null, 2)}\n`,
    );
    await git(['init', '-q', '-b', 'main'], { cwd: appWork, env: QUIET_GIT });
    await git(['add', '-A'], { cwd: appWork, env: QUIET_GIT });
    await git(['commit', '-q', '-m', 'app'], { cwd: appWork, env: QUIET_GIT });
    await git(['push', '-q', gitUrl(baseUrl, owner, app), 'main'], { cwd: appWork, env: QUIET_GIT });

    ctx.log(`gitea: one Renovate run on ${RENOVATE_DEPS} dependencies`);
    const baseDir = join(scratch, 'renovate');
    const renovateBefore = cpuMs([process.pid], true) - cpuMs([process.pid]);
    const start = nowMs();
    const [run, cpu] = await withCpu(processes, () => runRenovate({ endpoint: `${baseUrl}/api/v1`, token: botToken, repository: `${owner.username}/${app}`, baseDir }), true);
    const wallMs = nowMs() - start;
    const renovateCpu = cpuMs([process.pid], true) - cpuMs([process.pid]) - renovateBefore;
    const mrs = await owner.api.expect<unknown[]>(200, 'GET', `/api/repos/${owner.username}/${app}/merge-requests?state=open`);
    const githostCpu = Object.values(cpu).reduce((a, b) => a + b, 0);
    const apiCalls = run.requests.filter((r) => r.path.startsWith('/api/v1/')).length;
    const refused = run.requests.filter((r) => r.method !== 'GET' && r.status >= 300).length;
    const table: Table = {
      title: `One Renovate 39 run on a repository with ${RENOVATE_DEPS} dependencies (each 1.0.0 -> 1.2.0 from git tags on githost)`,
      header: ['exit', 'merge requests opened', 'API calls', 'writes refused', 'problems logged', 'wall time', 'githost CPU', 'Renovate CPU (with its git)'],
      rows: [[String(run.exitCode), String(mrs.length), String(apiCalls), String(refused), String(run.problems.length), fmtMs(wallMs), fmtMs(githostCpu), fmtMs(renovateCpu)]],
    };
    const byProcess = Object.entries(cpu).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([n, ms]) => `${n} ${fmtMs(ms)}`).join(', ');
    return { table, notes: [`githost CPU of the Renovate run by process (with the git processes each reaped): ${byProcess}`, ...run.problems.slice(0, 5).map((p) => `Renovate logged: ${p}`)] };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Slices of one request added up: answers over the summed time, the median of their p50s, their CPU by process. */
class LoadTotals {
  answers = 0;
  bad = 0;
  private ms = 0;
  private p50s: number[] = [];
  readonly cpu: Record<string, number> = {};

  add(load: LoadResult, cpu: Record<string, number>): void {
    const answers = Object.values(load.statuses).reduce((a, b) => a + b, 0);
    this.answers += answers;
    this.bad += answers - (load.statuses['200'] ?? 0) + load.errors;
    this.ms += load.rps > 0 ? (answers / load.rps) * 1000 : 0;
    this.p50s.push(load.p50);
    for (const [n, ms] of Object.entries(cpu)) this.cpu[n] = (this.cpu[n] ?? 0) + ms;
  }

  get rps(): number {
    return this.ms > 0 ? (this.answers * 1000) / this.ms : 0;
  }

  get p50(): number {
    const s = [...this.p50s].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] ?? 0;
  }
}

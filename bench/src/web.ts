import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { Api } from './api.js';
import type { BenchContext } from './context.js';
import { withCpu } from './cpu.js';
import { git } from './git.js';
import { fetchOnce, loadTest, sequentialLatency, type LoadResult } from './load.js';
import { workDir } from './paths.js';
import type { Section, Table } from './report.js';
import { fmtMiB, fmtMs, fmtNum, fmtRatio, verdict } from './stats.js';

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@bench.example', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@bench.example' };
const KiB = 1024;

/** A TypeScript source of about `bytes` bytes (for the highlighted file page). */
function source(bytes: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < bytes; i++) lines.push(`export function f${i}(a: number, b: string): string {\n  // line ${i}\n  return \`\${a} and \${b}\` + "${'x'.repeat(8)}";\n}`);
  return lines.join('\n') + '\n';
}

/**
 * The web's pages through the gateway, signed in (targets: services/web/README.md#what-a-page-costs): server time of the
 * tree page (20 entries), a highlighted 10 KiB file, a merge request with a 50-file diff, each
 * beside the API call it is built from, measured in the same run; the tree page under 50
 * connections; the compressed size of the page's script and stylesheet; the web process's RSS.
 */
export async function benchWeb(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'web', title: 'Web pages', tables: [], notes: [], skipped: skip };
  const service = await ctx.service();
  const admin = new Api(service.url, service.adminToken);
  const username = `web${randomBytes(3).toString('hex')}`;
  const password = `bench-${randomBytes(8).toString('hex')}`;
  await admin.expect(201, 'POST', '/api/admin/users', { username, email: `${username}@bench.example`, password });
  const session = await new Api(service.url).expect<{ secret: string }>(201, 'POST', '/api/sessions', { username, password });
  const user = new Api(service.url, session.secret);
  await user.expect(201, 'POST', '/api/repos', { name: 'pages' });
  const cookie = { cookie: `githost_session=${encodeURIComponent(session.secret)}` };
  const bearer = { authorization: `Bearer ${session.secret}` };

  // 19 small files and src/ at the root (20 entries); src/big.ts of 10 KiB; a branch changing 50 files.
  const scratch = mkdtempSync(join(workDir('scratch'), 'web-'));
  try {
    const work = join(scratch, 'work');
    mkdirSync(join(work, 'src'), { recursive: true });
    for (let i = 0; i < 19; i++) writeFileSync(join(work, `file-${String(i).padStart(2, '0')}.txt`), `file ${i}\n`);
    writeFileSync(join(work, 'src', 'big.ts'), source(10 * KiB));
    for (let i = 0; i < 50; i++) writeFileSync(join(work, 'src', `m${i}.ts`), Array.from({ length: 20 }, (_, k) => `export const v${k} = ${k};`).join('\n') + '\n');
    await git(['init', '-q', '-b', 'main'], { cwd: work, env: QUIET_GIT });
    await git(['add', '-A'], { cwd: work, env: QUIET_GIT });
    await git(['commit', '-q', '-m', 'base'], { cwd: work, env: QUIET_GIT });
    await git(['checkout', '-q', '-b', 'fifty'], { cwd: work, env: QUIET_GIT });
    for (let i = 0; i < 50; i++) writeFileSync(join(work, 'src', `m${i}.ts`), Array.from({ length: 20 }, (_, k) => `export const v${k} = ${k % 4 === 0 ? k * 10 : k};`).join('\n') + '\n');
    await git(['commit', '-q', '-am', 'change fifty files'], { cwd: work, env: QUIET_GIT });
    const url = new URL(service.url);
    url.username = username;
    url.password = session.secret;
    url.pathname = `/${username}/pages.git`;
    await git(['push', '-q', url.toString(), 'main', 'fifty'], { cwd: work, env: QUIET_GIT });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const mr = await user.expect<{ number: number }>(201, 'POST', `/api/repos/${username}/pages/merge-requests`, { title: 'Fifty files', source_branch: 'fifty', target_branch: 'main' });

  const quick = ctx.quick;
  const samples = quick ? 30 : 100;
  const pages = [
    { name: 'tree page, 20 entries', page: `/${username}/pages`, api: `/api/repos/${username}/pages/tree/main`, target: 30 },
    { name: 'file page, 10 KiB source highlighted', page: `/${username}/pages/-/blob/main/src/big.ts`, api: `/api/repos/${username}/pages/blob/main/src/big.ts`, target: 50 },
    { name: 'merge request page, 50-file diff', page: `/${username}/pages/-/merge-requests/${mr.number}`, api: `/api/repos/${username}/pages/merge-requests/${mr.number}`, target: 150 },
  ];
  service.rss.reset();
  const latency: Table = {
    title: 'Page server time through the gateway, signed in, one request at a time (vs the main API call of the page, same run)',
    header: ['page', 'web p50', 'web p95', 'API call p50', 'ratio p50', 'target p50', 'met'],
    rows: [],
  };
  for (const p of pages) {
    const first = await fetchOnce(service.url + p.page, cookie);
    if (first.status !== 200) throw new Error(`${p.page}: HTTP ${first.status}`);
    for (let i = 0; i < 3; i++) await fetchOnce(service.url + p.page, cookie);
    ctx.log(`web: ${p.name}`);
    const web = await sequentialLatency(service.url + p.page, samples, cookie);
    const apiCall = await sequentialLatency(service.url + p.api, samples, bearer);
    latency.rows.push([p.name, fmtMs(web.summary.p50), fmtMs(web.summary.p95), fmtMs(apiCall.summary.p50), fmtRatio(web.summary.p50, apiCall.summary.p50), `< ${p.target} ms`, verdict(web.summary.p50 < p.target)]);
  }

  ctx.log('web: tree page under 50 connections');
  const seconds = quick ? 5 : 15;
  const [loaded, pageCpu] = await withCpu(service.processes, () => loadTest(service.url + pages[0]!.page, { connections: 50, seconds, headers: cookie }));
  const [apiLoaded, apiCpu] = await withCpu(service.processes, () => loadTest(service.url + pages[0]!.api, { connections: 50, seconds, headers: bearer }));
  const ok = loaded.statuses['200'] ?? 0;
  const load: Table = {
    title: `Tree page under 50 connections for ${seconds} s (vs its API call under the same load)`,
    header: ['request', 'requests/s', 'p50', 'p99', 'non-200 or errors', 'target', 'met'],
    rows: [
      ['tree page (web)', fmtNum(loaded.rps), fmtMs(loaded.p50), fmtMs(loaded.p99), String(Object.entries(loaded.statuses).filter(([s]) => s !== '200').reduce((n, [, c]) => n + c, 0) + loaded.errors), '>= 800 pages/s', verdict(loaded.rps >= 800 && ok > 0)],
      ['tree API call', fmtNum(apiLoaded.rps), fmtMs(apiLoaded.p50), fmtMs(apiLoaded.p99), String(Object.entries(apiLoaded.statuses).filter(([s]) => s !== '200').reduce((n, [, c]) => n + c, 0) + apiLoaded.errors), '—', '—'],
    ],
  };
  notes.push(`tree page / API call throughput ratio under load: ${fmtRatio(loaded.rps, apiLoaded.rps)}`);
  // Where a page's time goes (services/web/README.md#what-a-page-costs): CPU per answer of each
  // githost process over the same load, robust to other load on the machine.
  const names = [...new Set([...Object.keys(pageCpu), ...Object.keys(apiCpu)])].filter((n) => (pageCpu[n] ?? 0) + (apiCpu[n] ?? 0) > 0);
  names.sort((a, b) => (pageCpu[b] ?? 0) - (pageCpu[a] ?? 0));
  const cpuRow = (label: string, load: LoadResult, cpu: Record<string, number>) => {
    const per = (ms: number | undefined) => (ms === undefined || answered(load) === 0 ? '—' : fmtNum((ms * 1000) / answered(load)));
    return [label, per(Object.values(cpu).reduce((a, b) => a + b, 0)), ...names.map((n) => per(cpu[n]))];
  };
  const cpu: Table = {
    title: 'githost CPU µs per answer under that load, by process (user + system time over the run ÷ answers)',
    header: ['request', 'all', ...names],
    rows: [cpuRow('tree page (web)', loaded, pageCpu), cpuRow('tree API call', apiLoaded, apiCpu)],
  };

  // Every page links the same two assets and nothing else (services/web/README.md#script-is-an-enhancement).
  const assets: Table = { title: 'Script and stylesheet per page, gzip -9 (every page loads the same two)', header: ['asset', 'bytes', 'compressed', 'target', 'met'], rows: [] };
  for (const name of ['site.js', 'site.css']) {
    const res = await fetchOnce(`${service.url}/-/static/${name}`);
    const raw = Buffer.from(res.body);
    const gz = gzipSync(raw, { level: 9 }).length;
    assets.rows.push([name, fmtNum(raw.length), `${(gz / KiB).toFixed(1)} KiB`, '<= 30 KiB', verdict(gz <= 30 * KiB)]);
  }

  const peaks = service.rss.read();
  const webBytes = peaks.byProcess.web ?? peaks.rootBytes;
  const webName = peaks.byProcess.web !== undefined ? 'web' : peaks.rootName;
  const rss: Table = { title: 'Web process memory during this part', header: ['process', 'peak RSS', 'target', 'met'], rows: [[webName, fmtMiB(webBytes), '< 300 MiB', verdict(webBytes < 300 * 1024 * 1024)]] };
  notes.push(`${samples} sequential samples per page after 4 warm-up requests; pages rendered for a signed-in user (the session secret as cookie), the API calls with the same secret as Bearer`);
  return { name: 'web', title: 'Web pages', tables: [latency, load, cpu, assets, rss], notes };
}

const answered = (load: LoadResult) => Object.values(load.statuses).reduce((a, b) => a + b, 0);

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRepo, gitUrl } from './api.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { workDir } from './paths.js';
import { startPlainGitHttp } from './plain-git-http.js';
import type { Section } from './report.js';
import { fmtMs, fmtRatio, nowMs, verdict } from './stats.js';

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };
/** docs/decisions/many-refs-push.md: at most 1.5x plain git, no other request delayed > 100 ms. */
const TARGET_RATIO = 1.5;
const TARGET_DELAY_MS = 100;
/** The probe goes on this long after the push ended: the consumers handle its events then. */
const PROBE_AFTER_MS = 10_000;
/**
 * What git-storage configures for a push that changes its cost (services/git-storage/src/git/repository.ts
 * and hooks/receive-pack.ts: every object checked, objects and refs fsynced, packs of 100 objects
 * or more kept as packs); the limits and hooks it also sets are not git's work. Plain git gets them
 * wherever the bench sets it beside githost (this part, the scale ladder, the SSH part).
 */
export const SAME_SETTINGS: Array<[string, string]> = [
  ['receive.fsckObjects', 'true'],
  ['core.fsync', 'objects,derived-metadata,reference'],
  ['core.fsyncMethod', 'fsync'],
  ['receive.unpackLimit', '100'],
];

/**
 * A repository of `n` commits in a chain, a branch on each (`b000001` the oldest), and a tag
 * `t/<branch>` on every `tagEvery`-th from the first: a push --mirror creates n refs, each with new
 * commits. The chain is one fast-import branch and the refs are written as one packed-refs file:
 * fast-import and update-ref write a loose ref at a time, minutes at 10,000 refs on a busy machine.
 */
export async function manyBranches(dir: string, n: number, tagEvery = 0): Promise<void> {
  await git(['init', '-q', dir]);
  const name = (i: number): string => `b${String(i).padStart(6, '0')}`;
  const lines: string[] = [];
  for (let i = 1; i <= n; i++) {
    lines.push(`commit refs/heads/${name(n)}`, `mark :${i}`, `committer Bench <bench@example.com> ${1_700_000_000 + i} +0000`, `data ${`c${i}`.length}`, `c${i}`);
    if (i > 1) lines.push(`from :${i - 1}`);
    lines.push('M 644 inline f.txt', `data ${String(i).length + 1}`, String(i), '');
  }
  const marks = join(dir, '.git', 'bench-marks');
  await git(['fast-import', '--quiet', `--export-marks=${marks}`], { cwd: dir, input: lines.join('\n') + '\n' });
  const oid = new Map(readFileSync(marks, 'utf8').trim().split('\n').map((l) => [Number(l.slice(1, l.indexOf(' '))), l.slice(l.indexOf(' ') + 1)]));
  const heads: string[] = [];
  const tags: string[] = [];
  for (let i = 1; i <= n; i++) {
    heads.push(`${oid.get(i)} refs/heads/${name(i)}\n`);
    if (tagEvery > 0 && (i - 1) % tagEvery === 0) tags.push(`${oid.get(i)} refs/tags/t/${name(i)}\n`);
  }
  // Sorted as git sorts them: refs/heads/ before refs/tags/, the names zero-padded.
  writeFileSync(join(dir, '.git', 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted \n${heads.join('')}${tags.join('')}`);
  rmSync(marks);
}

/** Asks `url` again and again, one at a time, until stopped; the slowest answer is the longest any request waited. */
function probe(url: string): { stop(): Promise<{ max: number; count: number }> } {
  let stopped = false;
  let max = 0;
  let count = 0;
  const loop = (async () => {
    while (!stopped) {
      const t = nowMs();
      await fetch(url).then((r) => r.arrayBuffer()).catch(() => undefined);
      max = Math.max(max, nowMs() - t);
      count++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { max, count };
    },
  };
}

/**
 * A push --mirror of 1,000 and 10,000 new branches through the gateway against plain git with the
 * same settings, over `file://` (the target's baseline) and over smart HTTP (`git http-backend`:
 * git's HTTP client matches one refspec per ref, which a file:// push does not), and /healthz
 * meanwhile.
 */
export async function benchManyRefs(ctx: BenchContext): Promise<Section> {
  const counts = (process.env.BENCH_MANY_REFS ?? (ctx.quick ? '1000' : '1000,10000')).split(',').map(Number);
  // BENCH_MANY_REFS_HTTP=0 leaves out the plain git HTTP push: git's client alone takes ~17 min
  // at 10,000 refs (docs/decisions/many-refs-push.md), and the targets compare with file://.
  const withHttpBaseline = process.env.BENCH_MANY_REFS_HTTP !== '0';
  const scratch = mkdtempSync(join(workDir('scratch'), 'many-refs-'));
  const notes = [
    'source: a chain of N commits with a branch on each (every ref new, every tip its own commit); `git push --mirror`',
    `plain git: a bare repository with ${SAME_SETTINGS.map(([k, v]) => `${k}=${v}`).join(', ')} (githost's settings), pushed over \`file://\` and over smart HTTP (\`git http-backend\` as CGI, no authentication)`,
    `/healthz: asked through the gateway one request at a time, 20 ms apart, while the githost push ran and ${PROBE_AFTER_MS / 1000} s after (its events are consumed then); the slowest answer`,
  ];
  const rows: string[][] = [];
  const plainHttp = await startPlainGitHttp(scratch);
  const plainRepo = async (name: string) => {
    const dir = join(scratch, name);
    await git(['init', '-q', '--bare', dir]);
    for (const [k, v] of [...SAME_SETTINGS, ['http.receivepack', 'true']]) await git(['config', k!, v!], { cwd: dir });
    return dir;
  };
  try {
    const service = await ctx.service();
    const user = await ctx.user();
    for (const n of counts) {
      const source = join(scratch, `source-${n}`);
      await manyBranches(source, n);
      const raw = await plainRepo(`raw-${n}.git`);
      let t = nowMs();
      await git(['push', '-q', '--mirror', `file://${raw}`], { cwd: source, env: QUIET_GIT });
      const rawMs = nowMs() - t;
      rmSync(raw, { recursive: true, force: true });
      let httpMs: number | undefined;
      if (withHttpBaseline) {
        const overHttp = await plainRepo(`http-${n}.git`);
        t = nowMs();
        await git(['push', '-q', '--mirror', `${plainHttp.url}/http-${n}.git`], { cwd: source, env: QUIET_GIT });
        httpMs = nowMs() - t;
        rmSync(overHttp, { recursive: true, force: true });
      }
      const { name } = await createRepo(user, `many-refs-${n}-${Date.now()}`);
      const healthz = probe(`${service.url}/healthz`);
      let hostMs: number;
      let delay: { max: number; count: number };
      try {
        t = nowMs();
        await git(['push', '-q', '--mirror', gitUrl(service.url, user, name)], { cwd: source, env: QUIET_GIT });
        hostMs = nowMs() - t;
        await new Promise((r) => setTimeout(r, PROBE_AFTER_MS));
      } finally {
        // A push ended by the part's timeout must not leave the probe asking /healthz.
        delay = await healthz.stop();
      }
      rows.push([n.toLocaleString('en-US'), fmtMs(rawMs), httpMs === undefined ? '—' : fmtMs(httpMs), fmtMs(hostMs), fmtRatio(hostMs, rawMs), httpMs === undefined ? '—' : fmtRatio(hostMs, httpMs), `${fmtMs(delay.max)} (${delay.count} asked)`, verdict(hostMs / rawMs <= TARGET_RATIO && delay.max <= TARGET_DELAY_MS)]);
      ctx.log(`many-refs: ${n} refs: file:// ${fmtMs(rawMs)}, http-backend ${httpMs === undefined ? '—' : fmtMs(httpMs)}, githost ${fmtMs(hostMs)}, /healthz max ${fmtMs(delay.max)}`);
      rmSync(source, { recursive: true, force: true });
    }
  } finally {
    await plainHttp.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  return {
    name: 'many-refs',
    title: 'Push of many refs',
    tables: [
      {
        title: `push --mirror of N new branches (targets: githost / file:// <= ${TARGET_RATIO}, /healthz <= ${TARGET_DELAY_MS} ms)`,
        header: ['refs', 'plain git file://', 'plain git HTTP (http-backend)', 'githost (HTTP)', 'githost / file://', 'githost / http-backend', 'slowest /healthz meanwhile', 'targets met'],
        rows,
      },
    ],
    notes,
  };
}

import { createReadStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { waitForQuiet } from './quiet.js';
import { workDir } from './paths.js';
import type { Section } from './report.js';
import { fmtLargest, type RssPeaks } from './rss.js';
import { fmtMiB, fmtMs, fmtRatio, nowMs, verdict } from './stats.js';

const QUIET_GIT = { GIT_TERMINAL_PROMPT: '0' };
const TARGET_RATIO = 1.3;
const TARGET_RSS = 200 * 1024 * 1024;

/** Push and clone of the generated repository through the gateway vs `file://`. */
export async function benchClonePush(ctx: BenchContext): Promise<Section> {
  const repo = await ctx.repo();
  await warmPageCache(repo.path);
  const scratch = mkdtempSync(join(workDir('scratch'), 'clone-push-'));
  const notes = [`repository: ${repo.commits.toLocaleString('en-US')} commits, ${repo.files.toLocaleString('en-US')} files, pack ${fmtMiB(repo.packBytes)}; clones are \`git clone --no-checkout\` (transport only; a checkout costs the same either way)`];
  try {
    const rawPath = join(scratch, 'raw.git');
    await git(['init', '-q', '--bare', rawPath]);
    const rawPush = await time(() => git(['push', '-q', '--mirror', `file://${rawPath}`], { cwd: repo.path, env: QUIET_GIT }));
    const rawClone = await time(() => git(['clone', '-q', '--no-checkout', `file://${rawPath}`, join(scratch, 'raw-clone')], { env: QUIET_GIT }));
    rmSync(join(scratch, 'raw-clone'), { recursive: true, force: true });

    const skip = ctx.serviceUnavailable();
    let hostPush: number | undefined;
    let hostClone: number | undefined;
    let pushRss: RssPeaks | undefined;
    let cloneRss: RssPeaks | undefined;
    if (skip) {
      notes.push(`githost side skipped: ${skip}`);
    } else {
      // githost checks every pushed object (receive.fsckObjects, docs/security.md); raw git doing
      // the same shows what githost itself adds. The target row stays against the plain push.
      const fsckPath = join(scratch, 'raw-fsck.git');
      await git(['init', '-q', '--bare', fsckPath]);
      await git(['config', 'receive.fsckObjects', 'true'], { cwd: fsckPath });
      const rawFsckPush = await time(() => git(['push', '-q', '--mirror', `file://${fsckPath}`], { cwd: repo.path, env: QUIET_GIT }));
      rmSync(fsckPath, { recursive: true, force: true });
      const service = await ctx.service();
      service.rss.reset();
      const hosted = await ctx.hostedRepo(async (url) => {
        hostPush = await time(() => git(['push', '-q', '--mirror', url], { cwd: repo.path, env: QUIET_GIT }));
      });
      if (hostPush === undefined) notes.push('the repository was already pushed by an earlier bench; push not timed');
      pushRss = service.rss.read();
      const waited = await waitForQuiet(service.pid);
      if (waited > 1500) notes.push(`waited ${fmtMs(waited)} after the push for the service to go idle (background work) before cloning`);
      service.rss.reset();
      hostClone = await time(() => git(['clone', '-q', '--no-checkout', hosted.url, join(scratch, 'host-clone')], { env: QUIET_GIT }));
      cloneRss = service.rss.read();
      const head = (await git(['rev-parse', 'refs/heads/main'], { cwd: join(scratch, 'host-clone') })).stdout.toString().trim();
      if (head !== repo.head) notes.push(`WARNING: the clone's main is ${head}, expected ${repo.head}`);
      notes.push(`largest githost process high-water mark since start (VmHWM): ${fmtMiB(service.rss.highWaterMark())}`);
      if (hostPush !== undefined) notes.push(`push --mirror against raw git with \`receive.fsckObjects=true\` (the check githost makes on every push): raw ${fmtMs(rawFsckPush)}, githost ${fmtRatio(hostPush, rawFsckPush)} of it`);
    }
    const row = (op: string, raw: number, host: number | undefined, rss: RssPeaks | undefined): string[] => [
      op,
      fmtMs(raw),
      fmtMs(host),
      fmtRatio(host, raw),
      fmtLargest(rss),
      fmtMiB(rss?.treeBytes),
      host === undefined ? '—' : verdict(host / raw <= TARGET_RATIO && (rss?.rootBytes ?? 0) < TARGET_RSS),
    ];
    return {
      name: 'clone-push',
      title: 'Clone and push',
      tables: [
        {
          title: `git over the gateway vs file:// (targets: ratio <= ${TARGET_RATIO}, service RSS < 200 MiB)`,
          header: ['operation', 'raw git (file://)', 'githost (HTTP)', 'ratio', 'service peak RSS', 'peak RSS with git children', 'targets met'],
          rows: [row('push --mirror', rawPush, hostPush, pushRss), row('clone', rawClone, hostClone, cloneRss)],
        },
      ],
      notes,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = nowMs();
  await fn();
  return nowMs() - start;
}

/** Reads the packs once so the first contestant does not pay for a cold page cache. */
export async function warmPageCache(repoPath: string): Promise<void> {
  const packDir = join(repoPath, 'objects', 'pack');
  for (const file of readdirSync(packDir)) {
    await pipeline(createReadStream(join(packDir, file)), new Writable({ write: (_c, _e, cb) => cb() }));
  }
}

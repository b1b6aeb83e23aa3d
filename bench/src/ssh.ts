import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateSshKey } from '@githost/test-support';
import { createRepo, gitUrl } from './api.js';
import { warmPageCache } from './clone-push.js';
import type { BenchContext } from './context.js';
import { git } from './git.js';
import { accepts, listenerPid, processTitle, statusBytes } from './listener.js';
import { SAME_SETTINGS } from './many-refs.js';
import { workDir } from './paths.js';
import { waitForQuiet } from './quiet.js';
import type { Section, Table } from './report.js';
import { fmtLargest, type RssPeaks } from './rss.js';
import { sshdMissing, startPlainSshd, type PlainSshd } from './sshd.js';
import { fmtMiB, fmtMs, fmtRatio, nowMs, summarize, verdict } from './stats.js';

const TARGET_RATIO = 1.1;
const TARGET_IDLE_RSS = 60 * 1024 * 1024;
/**
 * How long the SSH service has been without work when its idle RSS is read: the service runs one
 * full collection 2 s after its last command ended (docs/decisions/ssh-server.md#memory), so a
 * reading taken as the last connection closes counts that connection's garbage as held memory.
 */
const IDLE_SETTLE_MS = 5000;
export const NO_SSH_LISTENER = 'not available (no SSH listener)';

/** OpenSSH's client with only `keyFile`, no prompt and the loopback service's host key unchecked;
 *  git adds `-p <port>` and, for protocol v2, `-o SendEnv=GIT_PROTOCOL` (OpenSSH variant). */
export function sshClientArgs(keyFile: string): string[] {
  return ['-F', '/dev/null', '-i', keyFile, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR'];
}

/** The environment of a git that reaches a remote over SSH with `keyFile`. */
export function gitSshEnv(keyFile: string): Record<string, string> {
  return { GIT_TERMINAL_PROMPT: '0', GIT_SSH_COMMAND: ['ssh', ...sshClientArgs(keyFile)].join(' ') };
}

/** What the bench reaches over SSH: `ssh://<user>@127.0.0.1:<port>/<path>`, and the path a bare `git-upload-pack` is given. */
interface SshRemote {
  url: string;
  user: string;
  port: number;
  /** The argument of `git-upload-pack '<path>'` as git itself sends it. */
  path: string;
}

/**
 * git over githost's SSH service (bench/README.md#ssh-git-over-ssh) vs a plain OpenSSH `sshd` of the bench's
 * own running `git-upload-pack`/`git-receive-pack` on a bare repository, and vs githost's HTTP, in
 * the same run: push --mirror and clone of the generated repository, connection set-up (kex,
 * authentication and an exec answered at once) and the SSH service's idle RSS.
 */
export async function benchSsh(ctx: BenchContext): Promise<Section> {
  const skip = ctx.serviceUnavailable();
  if (skip) return { name: 'ssh', title: 'Git over SSH', tables: [], notes: [], skipped: skip };
  const repo = await ctx.repo();
  await warmPageCache(repo.path);
  const notes = [
    `repository: ${repo.commits.toLocaleString('en-US')} commits, ${repo.files.toLocaleString('en-US')} files, pack ${fmtMiB(repo.packBytes)}; clones are \`git clone --no-checkout\`; each operation once (big transfers on a shared 2-core machine)`,
  ];
  const scratch = mkdtempSync(join(workDir('scratch'), 'ssh-'));
  let sshd: PlainSshd | undefined;
  try {
    const key = await generateSshKey('ed25519', { comment: 'bench@githost' });
    const keyFile = join(scratch, 'id_ed25519');
    writeFileSync(keyFile, key.privateKey, { mode: 0o600 });
    const sshArgs = sshClientArgs(keyFile);
    const gitEnv = gitSshEnv(keyFile);

    // OpenSSH: a bare repository on the same disk, served by sshd's own exec of git.
    let plain: SshRemote | undefined;
    let plainChecked: SshRemote | undefined;
    const missing = sshdMissing();
    if (missing) notes.push(`OpenSSH rows skipped: ${missing}`);
    else {
      sshd = await startPlainSshd(join(scratch, 'sshd'), key.publicKey);
      const bare = join(scratch, 'plain.git');
      await git(['init', '-q', '--bare', '--initial-branch=main', bare]);
      plain = { url: `ssh://${sshd.user}@127.0.0.1:${sshd.port}${bare}`, user: sshd.user, port: sshd.port, path: bare };
      // The same sshd into a repository configured as git-storage configures its own for a push, so
      // the push row's difference that is githost's SSH transport shows apart from git's own checks.
      const checked = join(scratch, 'plain-checked.git');
      await git(['init', '-q', '--bare', '--initial-branch=main', checked]);
      for (const [k, v] of SAME_SETTINGS) await git(['config', '--local', k, v], { cwd: checked });
      plainChecked = { url: `ssh://${sshd.user}@127.0.0.1:${sshd.port}${checked}`, user: sshd.user, port: sshd.port, path: checked };
      notes.push(`OpenSSH: \`/usr/sbin/sshd -D\` (${await sshVersion()}) on 127.0.0.1:${sshd.port}, its own ed25519 host key, one authorized key, \`AcceptEnv GIT_PROTOCOL\`, logging in as ${sshd.user}; git runs through the login shell as with any sshd`);
    }

    // githost: SSH if it listens, HTTP always (each into a repository of its own).
    const service = await ctx.service();
    const user = await ctx.user();
    const sshPort = ctx.sshPort;
    let hosted: SshRemote | undefined;
    /** What the githost SSH cells say when they hold no figure. */
    let unavailable = NO_SSH_LISTENER;
    if (sshPort === undefined || !(await accepts(sshPort))) {
      notes.push(`githost SSH: nothing accepts on SSH_PORT ${sshPort ?? '(unset)'}: the SSH service is not on this branch, its rows read "${NO_SSH_LISTENER}"`);
    } else {
      const added = await user.api.request('POST', '/api/user/keys', { title: 'bench', key: key.publicKey });
      if (added.status !== 201) {
        unavailable = `not available (POST /api/user/keys: ${added.status})`;
        notes.push(`githost SSH: SSH_PORT ${sshPort} accepts, but registering the key answered ${added.status} ${JSON.stringify(added.body)}`);
      } else {
        const { name } = await createRepo(user, `ssh-${randomBytes(3).toString('hex')}`);
        hosted = { url: `ssh://git@127.0.0.1:${sshPort}/${user.username}/${name}.git`, user: 'git', port: sshPort, path: `/${user.username}/${name}.git` };
      }
    }
    const { name: httpName } = await createRepo(user, `http-${randomBytes(3).toString('hex')}`);
    const httpUrl = gitUrl(service.url, user, httpName);

    // Push --mirror, one after the other: OpenSSH, githost SSH, githost HTTP.
    const push = async (url: string): Promise<{ ms: number; rss: RssPeaks }> => {
      await waitForQuiet(service.pid);
      service.rss.reset();
      const ms = await time(() => git(['push', '-q', '--mirror', url], { cwd: repo.path, env: gitEnv }));
      ctx.log(`ssh: push --mirror ${url.replace(/\/\/[^@]*@/, '//')}: ${fmtMs(ms)}`);
      return { ms, rss: service.rss.read() };
    };
    const plainPush = plain && (await push(plain.url));
    const plainCheckedPush = plainChecked && (await push(plainChecked.url));
    // A failing githost SSH (the service is new) must not lose the baseline rows: say why instead.
    const orFailure = async <T>(step: string, work: () => Promise<T>): Promise<T | undefined> => {
      try {
        return await work();
      } catch (err) {
        notes.push(`githost SSH ${step} failed: ${err instanceof Error ? err.message : String(err)}`);
        unavailable = `failed (${step}; see notes)`;
        hosted = undefined;
        return undefined;
      }
    };
    const sshPush = hosted && (await orFailure('push', () => push(hosted!.url)));
    const httpPush = await push(httpUrl);

    // Clone --no-checkout of what was just pushed, in the same order.
    const clone = async (url: string, dir: string): Promise<{ ms: number; rss: RssPeaks }> => {
      await waitForQuiet(service.pid);
      service.rss.reset();
      const target = join(scratch, dir);
      const ms = await time(() => git(['clone', '-q', '--no-checkout', url, target], { env: gitEnv }));
      const rss = service.rss.read();
      ctx.log(`ssh: ${dir}: ${fmtMs(ms)}`);
      const head = (await git(['rev-parse', '--verify', '--end-of-options', 'refs/remotes/origin/main'], { cwd: target })).stdout.toString().trim();
      if (head !== repo.head) notes.push(`WARNING: the ${dir}'s main is ${head}, expected ${repo.head}`);
      rmSync(target, { recursive: true, force: true });
      return { ms, rss };
    };
    const plainClone = plain && (await clone(plain.url, 'plain-clone'));
    const sshClone = hosted && (await orFailure('clone', () => clone(hosted!.url, 'ssh-clone')));
    const httpClone = await clone(httpUrl, 'http-clone');

    // Connection set-up: `ssh … "git-upload-pack '<path>'"` sent a flush at once (protocol v2: the
    // server advertises its capabilities, reads the flush, exits), pairs alternating.
    const rounds = Number(ctx.env.BENCH_SSH_CONNECTS ?? (ctx.quick ? 10 : 30));
    const setup: { plain: number[]; hosted: number[] } = { plain: [], hosted: [] };
    await waitForQuiet(service.pid);
    for (let i = 0; i < rounds; i++) {
      if (plain) setup.plain.push(await connectOnce(sshArgs, plain));
      if (hosted) {
        const remote = hosted;
        const ms = await orFailure('connection set-up', () => connectOnce(sshArgs, remote));
        if (ms !== undefined) setup.hosted.push(ms);
      }
    }

    // Idle RSS of the process that holds SSH_PORT, once githost is quiet again; read as the last
    // connection ended too (earlier runs read a second or two later, before the idle collection).
    const busyRss = sshPort === undefined ? undefined : rssOfListener(sshPort);
    const tables: Table[] = [
      transferTable(
        [
          ['push --mirror', plainPush, sshPush, httpPush],
          ['push --mirror, OpenSSH with githost\'s receive settings', plainCheckedPush, sshPush, httpPush, 'none (the transport\'s own cost)'],
          ['clone --no-checkout', plainClone, sshClone, httpClone],
        ],
        plain !== undefined,
        unavailable,
      ),
    ];
    tables.push(setupTable(setup, plain !== undefined, setup.hosted.length > 0 ? undefined : unavailable, rounds));
    const sshPeaks = { push: sshPush?.rss.byProcess.ssh, clone: sshClone?.rss.byProcess.ssh };
    tables.push(await idleTable(ctx, service.pid, sshPort, busyRss, sshPeaks, hosted !== undefined || sshPush !== undefined ? undefined : unavailable));
    notes.push(`githost checks every pushed object (receive.fsckObjects); the OpenSSH baseline the target is read against is git-receive-pack with git's defaults, as the issue states it; the second push row is the same sshd into a repository with git-storage's receive settings (${SAME_SETTINGS.map(([k, v]) => `${k}=${v}`).join(', ')}: services/git-storage/src/git/repository.ts, hooks/receive-pack.ts), githost's hooks and events aside`);
    return { name: 'ssh', title: 'Git over SSH', tables, notes };
  } finally {
    await sshd?.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

type Timed = { ms: number; rss: RssPeaks } | undefined;

/** A row: operation, the OpenSSH figure, githost SSH, githost HTTP, and the target's cell when the row has none. */
type TransferRow = [string, Timed, Timed, Timed] | [string, Timed, Timed, Timed, string];

function transferTable(rows: TransferRow[], hasPlain: boolean, unavailable: string): Table {
  const noPlain = 'not available (no sshd)';
  return {
    title: `push and clone over SSH: githost vs OpenSSH sshd running git directly, and githost over HTTP (target: githost SSH <= ${TARGET_RATIO}x OpenSSH)`,
    header: ['operation', 'OpenSSH sshd', 'githost SSH', 'githost HTTP', 'SSH / OpenSSH', 'SSH / HTTP', 'githost peak RSS (SSH / HTTP)', 'target', 'met'],
    rows: rows.map(([op, plain, ssh, http, noTarget]) => [
      op,
      hasPlain ? fmtMs(plain?.ms) : noPlain,
      ssh ? fmtMs(ssh.ms) : unavailable,
      fmtMs(http?.ms),
      fmtRatio(ssh?.ms, plain?.ms),
      fmtRatio(ssh?.ms, http?.ms),
      `${ssh ? fmtLargest(ssh.rss) : '—'} / ${fmtLargest(http?.rss)}`,
      noTarget ?? `<= ${TARGET_RATIO}x OpenSSH`,
      noTarget ? '—' : ssh && plain ? verdict(ssh.ms / plain.ms <= TARGET_RATIO) : '—',
    ]),
  };
}

/** `unavailable`: why githost SSH has no figure (undefined when it has). */
function setupTable(setup: { plain: number[]; hosted: number[] }, hasPlain: boolean, unavailable: string | undefined, rounds: number): Table {
  const p = summarize(setup.plain);
  const h = summarize(setup.hosted);
  return {
    title: `connection set-up: \`ssh ... "git-upload-pack '<repo>'"\` answered with a flush at once (key exchange, public-key authentication, exec, v2 capability advertisement), ${rounds} alternating pairs`,
    header: ['server', 'n', 'p50', 'p95', 'p50 / OpenSSH p50'],
    rows: [
      hasPlain ? ['OpenSSH sshd', String(p.n), fmtMs(p.p50), fmtMs(p.p95), ''] : ['OpenSSH sshd', 'not available (no sshd)', '—', '—', ''],
      unavailable === undefined ? ['githost SSH', String(h.n), fmtMs(h.p50), fmtMs(h.p95), fmtRatio(h.p50, hasPlain ? p.p50 : undefined)] : ['githost SSH', unavailable, '—', '—', '—'],
    ],
  };
}

/** VmRSS of the process listening on `port`, if one is found. */
function rssOfListener(port: number): number | undefined {
  const pid = listenerPid(port);
  return pid === undefined ? undefined : statusBytes(pid, 'VmRSS');
}

/** MiB to a tenth: the idle figure and its target are a MiB or two apart. */
const fmtMiB1 = (bytes: number | undefined): string => (bytes === undefined ? '—' : `${(bytes / 1048576).toFixed(1)} MiB`);

/** Anonymous and file-backed resident bytes (/proc/<pid>/smaps_rollup), what the idle figure is made of. */
function residentSplit(pid: number): string {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kB = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN) * 1024;
    return `${fmtMiB1(kB('Anonymous'))} / ${fmtMiB1(kB('Rss') - kB('Anonymous'))}`;
  } catch {
    return '—';
  }
}

async function idleTable(ctx: BenchContext, servicePid: number, sshPort: number | undefined, busyRss: number | undefined, sshPeaks: { push?: number; clone?: number }, unavailable: string | undefined): Promise<Table> {
  const header = ['process holding SSH_PORT', 'pid', 'VmRSS as the last connection ended', 'idle VmRSS', 'of which anonymous / file', 'peak RSS during its push / clone', 'VmHWM since start', 'target', 'met'];
  const title = `the SSH service's idle RSS (VmRSS of the process that holds SSH_PORT, once githost was quiet for a second and ${IDLE_SETTLE_MS / 1000} s more; target <= ${fmtMiB(TARGET_IDLE_RSS)})`;
  // A listener that failed later still has an idle RSS worth reporting; no listener has none.
  if (sshPort === undefined || unavailable === NO_SSH_LISTENER) return { title, header, rows: [[NO_SSH_LISTENER, '—', '—', '—', '—', '—', '—', `<= ${fmtMiB(TARGET_IDLE_RSS)}`, '—']] };
  await waitForQuiet(servicePid);
  await new Promise((r) => setTimeout(r, IDLE_SETTLE_MS));
  const pid = listenerPid(sshPort);
  if (pid === undefined) return { title, header, rows: [['(listening socket not found in /proc)', '—', '—', '—', '—', '—', '—', `<= ${fmtMiB(TARGET_IDLE_RSS)}`, '—']] };
  const rss = statusBytes(pid, 'VmRSS');
  // With all services in one process, the port is the launcher's: say so, the figure is everyone's.
  const name = pid === servicePid ? `${processTitle(pid)} (the launcher: ${ctx.processPerService ? 'the port is bound by the launcher itself' : 'every service runs in this one process'})` : processTitle(pid);
  const peaks = `${fmtMiB1(sshPeaks.push)} / ${fmtMiB1(sshPeaks.clone)}`;
  return { title, header, rows: [[name, String(pid), fmtMiB1(busyRss), fmtMiB1(rss), residentSplit(pid), peaks, fmtMiB1(statusBytes(pid, 'VmHWM')), `<= ${fmtMiB(TARGET_IDLE_RSS)}`, rss === undefined ? '—' : verdict(rss <= TARGET_IDLE_RSS)]] };
}

/** One `ssh` run to exec git-upload-pack and end it with a flush; milliseconds from spawn to exit. */
function connectOnce(sshArgs: string[], remote: SshRemote): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = nowMs();
    const child = spawn('ssh', [...sshArgs, '-o', 'SendEnv=GIT_PROTOCOL', '-p', String(remote.port), `${remote.user}@127.0.0.1`, `git-upload-pack '${remote.path}'`], {
      env: { ...process.env, GIT_PROTOCOL: 'version=2' },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    child.stdin!.on('error', () => undefined);
    child.stdin!.end('0000');
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = nowMs() - start;
      if (code === 0) resolve(ms);
      else reject(new Error(`ssh -p ${remote.port} ${remote.user}@127.0.0.1 git-upload-pack exited ${code}: ${stderr.trim()}`));
    });
  });
}

function sshVersion(): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn('ssh', ['-V'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let out = '';
    child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
    child.on('close', () => resolve(out.trim().split(',')[0] ?? 'OpenSSH'));
    child.on('error', () => resolve('OpenSSH'));
  });
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = nowMs();
  await fn();
  return nowMs() - start;
}

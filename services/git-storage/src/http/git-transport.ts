import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { AppError, unsupportedMediaType, validation } from '@githost/errors';
import type { NextFunction } from '@githost/http';
import { answerRequestTimeout, identityOf, route, type Express, type Request, type Response } from '@githost/http';
import { clientGitOomScoreAdj, spawnGitStream, type GitChild } from '../git/command.js';
import type { PushedRef } from '../hooks/push-check.js';
import { preReceiveEnv, pushPolicyInput, receiveConfig } from '../hooks/receive-pack.js';
import { LFS_BYTES_ENV } from '../hooks/install.js';
import { directoryBytes, lfsRepositoryDir } from '../lfs/disk-object-store.js';
import { IdleCutoff } from './idle-cutoff.js';
import { peekCommands } from './receive-commands.js';
import { ReportStatusReader } from './report-status.js';
import type { RefIntent } from '../events/ref-intents.js';
import { existingRepository, refsChanged, type StorageContext } from '../storage-context.js';
import { authorizeTransport, type GitService } from './transport-access.js';
import type { Identity } from '@githost/identity';

const SERVICES = new Set<GitService>(['git-upload-pack', 'git-receive-pack']);
// Values git itself sends ("version=2", "version=2:object-format=sha1"); anything else is dropped.
const GIT_PROTOCOL = /^[A-Za-z0-9=:._-]{1,256}$/;

function noCache(res: Response): void {
  res.setHeader('Cache-Control', 'no-cache, max-age=0, must-revalidate');
  res.setHeader('Pragma', 'no-cache');
  res.setHeader('Expires', 'Fri, 01 Jan 1980 00:00:00 GMT');
}

function gitProtocolEnv(req: Request): Record<string, string> {
  const v = req.headers['git-protocol'];
  return typeof v === 'string' && GIT_PROTOCOL.test(v) ? { GIT_PROTOCOL: v } : {};
}

/** `--strict`: upload-pack never falls back to `<dir>/.git`; the path is exactly our bare repository. */
function transportFlags(service: GitService, ...flags: string[]): string[] {
  return service === 'git-upload-pack' ? ['--strict', ...flags] : flags;
}

/** One pkt-line of git's protocol: its length in four hex digits, then the line. */
export function pktLine(s: string): string {
  return (s.length + 4).toString(16).padStart(4, '0') + s;
}

/** A stopped git gets this long to clean up before it is killed outright. */
const STOP_GRACE_MS = 5_000;

/** Stops git: SIGTERM first, so git removes its lock files itself, SIGKILL if it is still
 *  running after STOP_GRACE_MS. A push's quarantine is removed once it ended (pushStarted). */
function stopGit(child: GitChild): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, STOP_GRACE_MS);
  timer.unref();
  child.once('exit', () => clearTimeout(timer));
}

/** Stops git when the client goes away before the exchange finished. */
function killOnDisconnect(res: Response, child: GitChild): void {
  res.on('close', () => {
    if (!res.writableFinished) stopGit(child);
  });
}

function exited(child: GitChild): Promise<number> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('close', (code) => resolve(code ?? -1));
  });
}

/**
 * The request body as git reads it: gunzipped when the client compressed it (git does for large
 * negotiations). A body that does not even start as gzip is refused (400) before git runs; one
 * that breaks later fails git's read like a cut-off upload.
 */
async function requestBody(req: Request, source: Readable): Promise<Readable> {
  const enc = (req.headers['content-encoding'] ?? '').toString().toLowerCase();
  if (enc === '' || enc === 'identity') return source;
  if (enc !== 'gzip' && enc !== 'x-gzip') throw unsupportedMediaType(`Unsupported Content-Encoding: ${enc}`);
  const gunzip = createGunzip();
  source.on('error', (err) => gunzip.destroy(err));
  source.pipe(gunzip);
  return firstChunkRead(gunzip);
}

/** Resolves once `body` yields its first chunk (kept in the stream) or ends; its error is a 400. */
function firstChunkRead(body: Readable): Promise<Readable> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      settle();
      body.pause();
      body.unshift(chunk);
      resolve(body);
    };
    const onEnd = () => {
      settle();
      resolve(Readable.from([]));
    };
    const onError = () => {
      settle();
      body.on('error', () => {}); // a later error of the abandoned stream must not crash the process
      reject(validation('Malformed gzip request body'));
    };
    body.on('data', onData);
    body.once('end', onEnd);
    body.once('error', onError);
  });
}

/**
 * The request body, cut off (408 or the connection closed, git stopped) once the client has sent
 * nothing for `PUSH_IDLE_TIMEOUT_MS`: a silent push would otherwise hold a receive-pack and its
 * quarantine forever.
 */
function watchedBody(ctx: StorageContext, req: Request, res: Response): IdleCutoff {
  const cutoff = new IdleCutoff(ctx.pushLimits.idleTimeoutMs, () => {
    ctx.logger.warn({ idle_ms: ctx.pushLimits.idleTimeoutMs }, 'git transport: the client sent nothing for too long, cutting it off');
    // The client's fault: 408 (the connection closes after it) while git has answered nothing
    // yet; once git's answer is under way, only cutting the connection is left. Either way git
    // stops, as its input fails.
    if (res.headersSent) req.destroy();
    else answerRequestTimeout(res);
    cutoff.destroy(new Error('request body idle'));
  });
  req.on('error', (err) => cutoff.destroy(err));
  // Whoever reads the body reports its errors; this listener only keeps a late one from crashing.
  cutoff.on('error', () => {});
  // An exchange that ended early (git refused the pack and stopped reading) stops the timer.
  res.on('close', () => cutoff.destroy());
  return req.pipe(cutoff);
}

/** Trailers of a duplex exchange: git's exit status, and its stderr (base64, first 8 KiB). */
export const GIT_EXIT_STATUS_TRAILER = 'x-git-exit-status';
export const GIT_STDERR_TRAILER = 'x-git-stderr';

/** A receive-pack about to run: its hooks' environment, its intent record, the commands it
 *  recorded itself when the client announced them with report-status. */
interface PreparedPush {
  repositoryId: string;
  intent: RefIntent;
  recorded?: { refs: PushedRef[]; report: ReportStatusReader };
}

/**
 * Everything a push needs before git starts, whichever transport carries it: its commands and
 * capabilities read off the front of `body` (peekCommands; the body given back whole, for git),
 * and the hooks' environment. The hooks refuse what the push may not do (src/hooks/: bounds, then
 * branch and tag protection). A command section that cannot be read (a push certificate, a
 * malformed or oversized list) leaves the recording to the reference-transaction hook.
 */
async function preparePush(ctx: StorageContext, repo: NonNullable<Identity['repo']>, identity: Identity, gitDir: string, env: Record<string, string>, body: Readable): Promise<{ push: PreparedPush; body: Readable }> {
  const peeked = await peekCommands(body);
  const input = await pushPolicyInput(ctx, repo, identity.request_id);
  Object.assign(env, preReceiveEnv(ctx.pushLimits, input, peeked.refs));
  // LFS objects count towards the quota with the git objects (docs/decisions/lfs.md "Limits").
  if (ctx.pushLimits.quotaBytes !== undefined) env[LFS_BYTES_ENV] = String(await directoryBytes(lfsRepositoryDir(ctx.dataDir, repo.id)));
  // A client that asks for git's report of every ref gets its commands recorded here, in one
  // fsync, and receive-pack runs without the reference-transaction hook (one shell and sync
  // per ref); otherwise the hook records what git prepares.
  const caps = peeked.capabilities ?? [];
  let recorded: PreparedPush['recorded'];
  if (peeked.refs && peeked.refs.length > 0 && (caps.includes('report-status') || caps.includes('report-status-v2'))) {
    recorded = { refs: peeked.refs, report: new ReportStatusReader(caps.includes('side-band-64k') || caps.includes('side-band')) };
  }
  // Last before git starts, so a request refused earlier leaves no record behind.
  const pusher = identity.principal?.username ?? 'unknown';
  const intent = await ctx.intents.prepare(gitDir, { repository: { id: repo.id, owner: repo.owner, name: repo.name }, pusher, requestId: identity.request_id }, recorded?.refs);
  Object.assign(env, ctx.intents.hookEnv(intent));
  return { push: { repositoryId: repo.id, intent, ...(recorded ? { recorded } : {}) }, body: peeked.body };
}

interface Exchange {
  service: GitService;
  gitDir: string;
  env: Record<string, string>;
  push: PreparedPush | undefined;
  flags: string[];
  body: Readable;
  res: Response;
  /** The full-duplex (SSH) exchange: the body does not end before git does. */
  duplex: boolean;
  /** Called on each chunk of git's output (the duplex body's idle cut-off counts it as activity). */
  onOutput?: () => void;
}

/** git's stderr as it comes, its first 8 KiB kept (for the log and the duplex trailer). */
function keptStderr(child: GitChild): () => string {
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 8192) stderr += b.toString('utf8');
  });
  return () => stderr;
}

/**
 * Runs git between `body` and `res` (left open: the caller ends it). A push keeps the response
 * open until its events are durable (CONTRACT §1): git's exit, then the quarantine, the refs
 * watchers and the intent record settled.
 */
async function exchange(ctx: StorageContext, { service, gitDir, env, push, flags, body, res, duplex, onOutput }: Exchange): Promise<{ code: number; stderr: string }> {
  const pushEnded = push ? ctx.housekeeping.pushStarted(gitDir) : undefined;
  const child = await spawnGitStream({ config: push ? receiveConfig(ctx, push.recorded !== undefined) : undefined, name: service.slice(4), flags: transportFlags(service, ...flags), args: [gitDir] }, { env, oomScoreAdj: clientGitOomScoreAdj() });
  killOnDisconnect(res, child);
  const stderrOf = keptStderr(child);
  const input = pipeline(body, child.stdin!).catch((err: unknown) => {
    // A client that stops sending mid-body: git sees EOF and fails on its own. (A duplex
    // exchange's input is cut on purpose once git is done.)
    if (!duplex || child.exitCode === null) ctx.logger.warn({ err }, 'git transport: request body ended early');
    stopGit(child);
  });
  child.stdout!.pipe(res, { end: false });
  if (onOutput) child.stdout!.on('data', onOutput);
  const recorded = push?.recorded;
  if (recorded) child.stdout!.on('data', (chunk: Buffer) => recorded.report.push(chunk));
  const [code] = await Promise.all([exited(child), new Promise((r) => child.stdout!.once('close', r))]);
  if (duplex) {
    // The SSH client closes its input only once it has the exit status: stop feeding git here.
    body.unpipe(child.stdin!);
    child.stdin!.destroy();
  }
  await input;
  const stderr = stderrOf();
  if (!push) return { code, stderr };
  await pushEnded!(code === 0).catch((err: unknown) => ctx.logger.warn({ err }, 'git transport: could not remove the quarantine of a push that did not finish'));
  try {
    const report = recorded?.report.result();
    // What git's whole report says it changed; without one (git killed, the answer cut) the refs
    // on disk tell what happened.
    const outcome = recorded && report ? { ok: recorded.refs.filter((u) => report.ok.has(u.ref)), failed: recorded.refs.filter((u) => !report.ok.has(u.ref)) } : undefined;
    // Before the response ends: once git hears "done", no watcher answers from older refs. With
    // git's whole report the refs cache reads again only the refs git changed.
    await refsChanged(ctx, gitDir, push.repositoryId, outcome?.ok.map((u) => u.ref));
    if (outcome) await ctx.intents.confirm(push.intent, outcome.ok, outcome.failed);
    await ctx.intents.settle(push.intent);
  } catch (err) {
    ctx.logger.error({ err }, 'git transport: could not record push events; they are journaled at the next start');
  }
  if (code !== 0) ctx.logger.warn({ exit_code: code, stderr: stderr.slice(0, 2000) }, `git ${service} failed`);
  return { code, stderr };
}

/**
 * The ref advertisement of `service` from a git that ends there (`--stateless-rpc
 * --advertise-refs`), streamed into `res`, which is left open: smart HTTP's `info/refs` and the
 * duplex receive-pack's first part (the same bytes a receive-pack over SSH starts with).
 */
async function advertise(service: GitService, gitDir: string, env: Record<string, string>, res: Response, onOutput?: () => void): Promise<{ code: number; stderr: string }> {
  const child = await spawnGitStream({ name: service.slice(4), flags: transportFlags(service, '--stateless-rpc', '--advertise-refs'), args: [gitDir] }, { env, oomScoreAdj: clientGitOomScoreAdj() });
  killOnDisconnect(res, child);
  const stderrOf = keptStderr(child);
  child.stdin!.end();
  if (onOutput) child.stdout!.on('data', onOutput);
  child.stdout!.pipe(res, { end: false });
  const [code] = await Promise.all([exited(child), new Promise((r) => child.stdout!.once('close', r))]);
  return { code, stderr: stderrOf() };
}

/**
 * Git smart HTTP (`info/refs`, `git-upload-pack`, `git-receive-pack`), `--stateless-rpc`, streamed
 * end to end in both directions with backpressure (pipe), so a 200 MB push or clone never sits
 * in memory. The push's ref changes are recorded before they happen (services/git-storage/README.md#push-events-survive-a-kill); after receive-pack, the push events are journaled before the response ends.
 */
export function mountGitTransport(app: Express, ctx: StorageContext): void {
  app.get(
    /^\/([^/]+)\/([^/]+)\.git\/info\/refs$/,
    route(async (req, res) => {
      res.locals.routeLabel = '/:owner/:repo.git/info/refs'; // the pattern, not the regex, in metrics
      const service = req.query.service;
      if (typeof service !== 'string' || !SERVICES.has(service as GitService)) throw validation('Only the smart HTTP protocol is supported (service=git-upload-pack or git-receive-pack)');
      const params = req.params as unknown as Record<string, string>;
      const repo = authorizeTransport(identityOf(res), params[0]!, params[1]!, service as GitService);
      const gitDir = await existingRepository(ctx, repo.id);
      const env = gitProtocolEnv(req);
      res.status(200).setHeader('Content-Type', `application/x-${service}-advertisement`);
      noCache(res);
      // Protocol v2 starts with the capability advertisement itself (git http-backend does the same).
      if (!env.GIT_PROTOCOL?.includes('version=2')) res.write(`${pktLine(`# service=${service}\n`)}0000`);
      await advertise(service as GitService, gitDir, env, res);
      res.end();
    }),
  );

  app.post(
    /^\/([^/]+)\/([^/]+)\.git\/(git-upload-pack|git-receive-pack)$/,
    route(async (req, res) => {
      const params = req.params as unknown as Record<string, string>;
      const service = params[2] as GitService;
      res.locals.routeLabel = `/:owner/:repo.git/${service}`;
      const identity = identityOf(res);
      const repo = authorizeTransport(identity, params[0]!, params[1]!, service);
      const gitDir = await existingRepository(ctx, repo.id);
      let body = await requestBody(req, watchedBody(ctx, req, res));
      const env = gitProtocolEnv(req);
      let push: PreparedPush | undefined;
      if (service === 'git-receive-pack') ({ push, body } = await preparePush(ctx, repo, identity, gitDir, env, body));
      res.status(200).setHeader('Content-Type', `application/x-${service}-result`);
      noCache(res);
      const { code } = await exchange(ctx, { service, gitDir, env, push, flags: ['--stateless-rpc'], body, res, duplex: false });
      if (push && code !== 0) ctx.logger.warn({ exit_code: code }, 'git receive-pack failed');
      res.end();
    }),
  );

  /**
   * Full-duplex git for the SSH server (services/ssh/README.md#git-runs-in-git-storage): the
   * request body is the SSH client's stdin and the response git's stdout, both streaming while the
   * exchange lasts; git's exit status and stderr follow in trailers. upload-pack runs WITHOUT
   * `--stateless-rpc`. A receive-pack is split as smart HTTP splits it: the advertisement from
   * `--stateless-rpc --advertise-refs`, then the client's command section read off the stream and
   * recorded here, then `--stateless-rpc` on the whole of what the client sends: so an SSH push
   * runs without the per-ref reference-transaction hook and with the pre-receive verdicts, as an
   * HTTP push does (docs/decisions/many-refs-push.md#over-ssh).
   * The body has smart HTTP's idle cut-off (PUSH_IDLE_TIMEOUT_MS), git's output counting as
   * activity too: an SSH client sends nothing while a clone streams or while it waits for
   * receive-pack's report (git sends keep-alives then), so only an exchange silent both ways is
   * cut (docs/decisions/ssh-server.md#limits) and a silent push cannot hold its quarantine.
   */
  app.post(
    /^\/([^/]+)\/([^/]+)\.git\/duplex\/(git-upload-pack|git-receive-pack)$/,
    route(async (req, res) => {
      const params = req.params as unknown as Record<string, string>;
      const service = params[2] as GitService;
      res.locals.routeLabel = `/:owner/:repo.git/duplex/${service}`;
      const identity = identityOf(res);
      const repo = authorizeTransport(identity, params[0]!, params[1]!, service);
      const gitDir = await existingRepository(ctx, repo.id);
      const env = gitProtocolEnv(req);
      res.status(200).setHeader('Content-Type', `application/x-${service}-duplex`);
      res.setHeader('Trailer', `${GIT_EXIT_STATUS_TRAILER}, ${GIT_STDERR_TRAILER}`);
      noCache(res);
      // The advertisement must reach the client before it sends anything.
      res.flushHeaders();
      // Watched from here: until git starts, the wait is the service's, not the client's.
      const watched = watchedBody(ctx, req, res);
      const onOutput = () => watched.activity();
      let result: { code: number; stderr: string };
      if (service === 'git-receive-pack') {
        const advertised = await advertise(service, gitDir, env, res, onOutput);
        if (advertised.code !== 0) {
          ctx.logger.warn({ exit_code: advertised.code, stderr: advertised.stderr.slice(0, 2000) }, 'git receive-pack --advertise-refs failed');
          result = advertised;
        } else {
          const { push, body } = await preparePush(ctx, repo, identity, gitDir, env, watched);
          result = await exchange(ctx, { service, gitDir, env, push, flags: ['--stateless-rpc'], body, res, duplex: true, onOutput });
        }
      } else {
        result = await exchange(ctx, { service, gitDir, env, push: undefined, flags: [], body: watched, res, duplex: true, onOutput });
      }
      res.addTrailers({ [GIT_EXIT_STATUS_TRAILER]: String(result.code), [GIT_STDERR_TRAILER]: Buffer.from(result.stderr).toString('base64') });
      res.end();
    }),
  );

  // git sends credentials only after a 401 carrying a challenge.
  app.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AppError && err.kind === 'unauthenticated' && !res.headersSent) res.setHeader('WWW-Authenticate', 'Basic realm="githost"');
    next(err);
  });
}

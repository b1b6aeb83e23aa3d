import http from 'node:http';
import https from 'node:https';
import { AppError, kindOfHttpStatus, unavailable } from '@githost/errors';
import { encodeIdentity } from '@githost/identity';
import type { ShardMap } from '@githost/storage-router';
import type { CommandStreams, GitRun } from '../commands/index.js';
import { GATHER_BYTES, pipeGathered } from './gather.js';

/** git-storage's duplex trailers (services/git-storage/src/http/git-transport.ts). */
const EXIT_STATUS_TRAILER = 'x-git-exit-status';
const STDERR_TRAILER = 'x-git-stderr';

/** Longest refusal body read before git starts (a JSON error). */
const MAX_ERROR_BODY = 16 * 1024;

/**
 * Runs git in the git-storage shard that holds the repository, over its full-duplex endpoint
 * (services/ssh/README.md#git-runs-in-git-storage): the SSH channel's input is the request body,
 * git's output the response, both streaming at once; the exit status and git's stderr come in
 * trailers. Addressed by the same signed identity as smart HTTP, so git-storage re-checks access.
 * The SSH client going away destroys the request, and git-storage stops git.
 */
export function duplexGit(shards: ShardMap, internalSecret: string) {
  return (run: GitRun, io: CommandStreams): Promise<number> => {
    const base = shards.get(run.repo.shard);
    if (!base) return Promise.reject(unavailable(`git-storage shard "${run.repo.shard}" has no GIT_STORAGE_HTTP_SHARDS entry`));
    const url = new URL(`${base}/${encodeURIComponent(run.repo.owner)}/${encodeURIComponent(run.repo.name)}.git/duplex/${run.command}`);
    const headers: Record<string, string> = {
      ...encodeIdentity({ principal: run.principal, repo: run.repo, request_id: run.requestId, issued_at: Date.now() }, internalSecret),
      'content-type': `application/x-${run.command}-request`,
      'x-request-id': run.requestId,
      ...(run.gitProtocol ? { 'git-protocol': run.gitProtocol } : {}),
    };
    return new Promise<number>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        fn();
      };
      const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'POST', headers, agent: false });
      const stopInput = () => {
        io.stdin.unpipe(req);
        if (!req.destroyed) req.destroy();
      };
      // The SSH channel closed before git finished: git-storage sees the request go and stops git.
      io.stdout.once('close', () => settle(() => {
        stopInput();
        resolve(-1);
      }));
      req.on('error', (err) => settle(() => reject(unavailable(`git-storage unavailable: ${err.message}`, err))));
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (b: Buffer) => {
            size += b.length;
            if (size <= MAX_ERROR_BODY) chunks.push(b);
          });
          res.on('end', () => settle(() => {
            stopInput();
            reject(refusalOf(res.statusCode ?? 500, Buffer.concat(chunks).toString('utf8')));
          }));
          return;
        }
        // Gathered into fuller SSH packets: what a clone's pack costs this process (docs/decisions/ssh-server.md#the-clone-path).
        pipeGathered(res, io.stdout, GATHER_BYTES, io.corked);
        res.on('end', () => settle(() => {
          stopInput();
          const stderr = Buffer.from(String(res.trailers[STDERR_TRAILER] ?? ''), 'base64');
          if (stderr.length > 0) io.stderr.write(stderr);
          const code = Number(res.trailers[EXIT_STATUS_TRAILER]);
          resolve(Number.isInteger(code) ? code : 1);
        }));
        res.on('error', (err) => settle(() => reject(unavailable(`git-storage answer cut: ${err.message}`, err))));
      });
      io.stdin.pipe(req);
      // node sends a request's headers with its first body bytes; git's client speaks only after
      // the advertisement, so the request must start without any.
      req.flushHeaders();
    });
  };
}

/** git-storage's JSON refusal as the AppError it was (its message reaches the SSH client). */
function refusalOf(status: number, body: string): AppError {
  let message = `git-storage answered ${status}`;
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') message = parsed.error;
  } catch {
    // not JSON: keep the status
  }
  return new AppError(kindOfHttpStatus(status) ?? (status === 503 ? 'unavailable' : 'internal'), message);
}

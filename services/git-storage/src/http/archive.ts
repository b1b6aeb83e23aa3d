import { isFullOid } from '@githost/git-records/object-id';
import { notFound } from '@githost/errors';
import { identityOf, route, type Express, type Response } from '@githost/http';
import { canRead } from '@githost/identity';
import { clientGitOomScoreAdj, spawnGitStream, type GitChild } from '../git/command.js';
import { resolveCommitOid } from '../git/objects.js';
import { existingRepository, type StorageContext } from '../storage-context.js';

const ARCHIVE_PATH = /^\/api\/repos\/([^/]+)\/([^/]+)\/archive\/(.+)\.(tar\.gz|zip)$/;
const CONTENT_TYPES = { 'tar.gz': 'application/gzip', zip: 'application/zip' } as const;
type ArchiveFormat = keyof typeof CONTENT_TYPES;

/**
 * `GET /api/repos/{owner}/{repo}/archive/{ref}.tar.gz|.zip` (docs/decisions/archives.md): `git archive` of
 * the ref's commit with the prefix `{repo}-{ref}/`, streamed from git to the client with
 * backpressure (a 1 GB archive never sits in memory), git killed when the client goes away.
 * Read access as browse: the repository comes only from the identity the gateway signed.
 */
export function mountArchives(app: Express, ctx: StorageContext): void {
  app.get(
    ARCHIVE_PATH,
    route(async (req, res) => {
      res.locals.routeLabel = '/api/repos/:owner/:repo/archive/:ref';
      const m = ARCHIVE_PATH.exec(req.path)!;
      const repo = identityOf(res).repo;
      if (!repo || !sameName(repo.owner, m[1]!) || !sameName(repo.name, m[2]!) || !canRead(repo.permission)) throw notFound('Not found');
      const ref = decodeRef(m[3]!);
      const format = m[4] as ArchiveFormat;
      const gitDir = await existingRepository(ctx, repo.id);
      const commit = await resolveArchiveRef(ctx, gitDir, ref);

      const etag = `"${commit}.${format}"`;
      const name = `${repo.name}-${ref.replace(/\//g, '-')}`;
      res.setHeader('ETag', etag);
      // The ref may move, so the URL's content may change: caches revalidate with the ETag.
      res.setHeader('Cache-Control', repo.private ? 'private' : 'public, no-cache');
      if (matchesEtag(req.headers['if-none-match'], etag)) {
        res.status(304).end();
        return;
      }
      res.status(200);
      res.setHeader('Content-Type', CONTENT_TYPES[format]);
      res.setHeader('Content-Disposition', contentDisposition(`${name}.${format}`));
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      // The prefix is a flag git writes into the archive; its value is a ref name that exists
      // (or a commit id), inside one `--prefix=` argument, so it can never read as an option.
      const child = await spawnGitStream({ name: 'archive', flags: [`--format=${format}`, `--prefix=${name}/`], args: [commit] }, { gitDir, oomScoreAdj: clientGitOomScoreAdj() });
      await streamArchive(ctx, res, child);
    }),
  );
}

function sameName(a: string, b: string): boolean {
  try {
    return a.toLowerCase() === decodeURIComponent(b).toLowerCase();
  } catch {
    return false;
  }
}

/** Percent-decoded exactly once, as browse decodes its refs (CONTRACT §9). */
function decodeRef(raw: string): string {
  let ref: string;
  try {
    ref = decodeURIComponent(raw);
  } catch {
    throw notFound(`Ref not found: ${raw}`);
  }
  return ref;
}

/** A branch, else a tag (a branch beats a tag of the same name), else a full 40-hex commit id, as browse resolves refs. */
async function resolveArchiveRef(ctx: StorageContext, gitDir: string, ref: string): Promise<string> {
  for (const full of [`refs/heads/${ref}`, `refs/tags/${ref}`]) {
    const found = await ctx.refs.get(gitDir, full);
    if (!found) continue;
    const commit = found.type === 'commit' ? found.target : await resolveCommitOid(ctx.pool, gitDir, found.target);
    if (commit) return commit;
  }
  // A 40-hex id must name a commit itself (not a tag object peeling to one).
  if (isFullOid(ref) && (await resolveCommitOid(ctx.pool, gitDir, ref)) === ref) return ref;
  throw notFound(`Ref not found: ${ref}`);
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '');
    return tag === '*' || tag === etag;
  });
}

/** RFC 6266: a quoted ASCII name, and the exact name in `filename*` when it is not plain ASCII. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (ascii === filename) return `attachment; filename="${filename}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

async function streamArchive(ctx: StorageContext, res: Response, child: GitChild): Promise<void> {
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => {
    if (stderr.length < 8192) stderr += b.toString('utf8');
  });
  child.stdin!.end();
  res.once('close', () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  // Ended only once git succeeded: an archive cut short by a failure must not look complete.
  child.stdout!.pipe(res, { end: false });
  const code = await new Promise<number>((resolve) => child.once('close', (c) => resolve(c ?? -1)));
  if (res.destroyed) return; // the client went away; git was killed
  if (code === 0) {
    res.end();
    return;
  }
  ctx.logger.error({ exit_code: code, stderr: stderr.slice(0, 2000) }, 'git archive failed');
  // Headers are out: a cut connection is the only way left to tell the client.
  res.destroy();
}

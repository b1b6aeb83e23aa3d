import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cleanupWorkdirs, createTestRepository, git as gitIn, pushTo, startTestStorage, type TestStorage } from '@githost/git-storage/testing';
import { encodeIdentity, type Identity, type Permission, type RepoContext } from '@githost/identity';
import { createStorageRouter, singleShard } from '@githost/storage-router';
import type { StorageServiceClient } from '@githost/protos';
import { createServer, type BrowseService } from '../../src/index.js';
import { writeFixtureHistory } from './fixture.js';
import { fastImport, git } from './git.js';

/** Small enough that the fixture's big.txt is "too large" for the blob endpoint. */
export const TEST_MAX_BLOB_BYTES = 64 * 1024;
export const FIXTURE_REPO = 'browse-fixture';
export const EMPTY_REPO = 'browse-empty';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json(): unknown;
}

export interface RequestOptions {
  repo?: Partial<RepoContext> | null;
  headers?: Record<string, string>;
  method?: string;
  /** Leave out the gateway's signed identity. */
  unsigned?: boolean;
}

export interface Harness {
  storage: TestStorage;
  browse: BrowseService;
  port: number;
  /** The metrics port's text (`GET /metrics`). */
  metrics(): Promise<string>;
  /** Bare repository holding exactly what was pushed: ask git itself here. */
  source: string;
  /** GET a path as given, byte for byte (no URL normalisation of `..` or `%2e`). */
  get(rawPath: string, opts?: RequestOptions): Promise<Answer>;
  git(...args: string[]): Promise<string>;
  stop(): Promise<void>;
}

export function repoContext(overrides: Partial<RepoContext> = {}): RepoContext {
  return {
    id: FIXTURE_REPO,
    owner: 'alice',
    name: 'fixture',
    default_branch: 'main',
    private: false,
    shard: 'default',
    permission: 'read' as Permission,
    owner_id: 'u-alice',
    ...overrides,
  };
}

export interface HarnessOptions {
  /** Wraps browse's git-storage client (e.g. to hold answers back). */
  wrapStorageClient?: (client: StorageServiceClient) => StorageServiceClient;
  /** BROWSE_CACHE_BYTES (default 8 MiB). */
  cacheBytes?: number;
  /** git-storage's Compare budget (docs/decisions/compare.md#budget); default its own. */
  compareBudget?: { maxWalkCommits?: number; timeoutMs?: number };
}

/** A real git-storage with the fixture pushed by the real git client, and browse in front of it. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const storage = await startTestStorage({ compareBudget: opts.compareBudget });
  const source = await mkdtemp(path.join(tmpdir(), 'browse-source-'));
  await git(source, 'init', '-q', '--bare');
  await writeFixtureHistory(source);
  await createTestRepository(storage, FIXTURE_REPO, 'main');
  await pushTo(storage, FIXTURE_REPO, source, 'refs/heads/*:refs/heads/*', 'refs/tags/*:refs/tags/*');
  await createTestRepository(storage, EMPTY_REPO, 'trunk');
  const client = opts.wrapStorageClient ? opts.wrapStorageClient(storage.client) : storage.client;
  const browse = createServer(
    { httpPort: 0, metricsPort: 0, bindHost: '127.0.0.1', internalSecret: storage.secret, storageShards: singleShard(storage.grpcAddress), maxBlobBytes: TEST_MAX_BLOB_BYTES, cacheBytes: opts.cacheBytes ?? 8 * 1024 * 1024 },
    { storage: createStorageRouter(singleShard(storage.grpcAddress), storage.secret, { createClient: () => client }) },
  );
  const { httpPort, metricsPort } = await browse.start();
  if (!(await browse.refsWatchReady())) throw new Error('browse: the refs watch did not become live');
  return {
    storage,
    browse,
    port: httpPort,
    metrics: async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
    source,
    get: (rawPath, opts = {}) => send(httpPort, storage.secret, rawPath, opts),
    git: (...args) => git(source, ...args),
    async stop() {
      await browse.stop();
      await storage.stop();
      await cleanupWorkdirs();
      await rm(source, { recursive: true, force: true });
    },
  };
}

function send(port: number, secret: string, rawPath: string, opts: RequestOptions): Promise<Answer> {
  const identity: Identity = {
    principal: null,
    repo: opts.repo === null ? null : repoContext(opts.repo ?? {}),
    request_id: 'test-request',
    issued_at: Date.now(),
  };
  const headers = { ...(opts.unsigned ? {} : encodeIdentity(identity, secret)), ...opts.headers };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: rawPath, method: opts.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) as unknown });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** `git push` of `work` to the fixture over git-storage's smart HTTP, signed as the gateway would sign a writer. */
export async function pushOverHttp(h: Harness, work: string, refspec = 'HEAD:refs/heads/main'): Promise<void> {
  const identity = encodeIdentity({ principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false }, repo: repoContext({ permission: 'write' }), request_id: 'push', issued_at: Date.now() }, h.storage.secret);
  const headers = Object.entries(identity).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
  await gitIn(work, ...headers, 'push', '-q', `http://127.0.0.1:${h.storage.httpPort}/alice/fixture.git`, refspec);
}

/** The browse URL prefix for the fixture (owner and name are the gateway's concern). */
export const API = '/api/repos/alice/fixture';

/**
 * A bare repository written by `git fast-import` from `stream`, pushed into git-storage as `repo`
 * (default branch main) with `refspecs`: the source directory, which the test reads git's own
 * answers from and removes at the end.
 */
export async function seedRepository(h: Harness, repo: string, stream: Buffer, refspecs = ['refs/heads/*:refs/heads/*']): Promise<string> {
  const source = await mkdtemp(path.join(tmpdir(), `browse-${repo}-`));
  await git(source, 'init', '-q', '--bare');
  await fastImport(source, stream);
  await createTestRepository(h.storage, repo, 'main');
  await pushTo(h.storage, repo, source, ...refspecs);
  return source;
}

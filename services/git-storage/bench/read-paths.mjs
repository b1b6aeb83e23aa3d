// Times git-storage's read RPCs over a real gRPC connection against git itself, on the repository
// bench/make-repo.mjs builds. Not a test: numbers for the README. Run after `npm run build`:
//   LOG_LEVEL=silent node bench/read-paths.mjs /tmp/gs-bench/big.git [rounds=15]
// BENCH_DIST=<dir> times another build of this service (an older commit's `dist/`) on the same repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callUnary, collectStream } from '@githost/grpc';
import { createStorageClient } from '@githost/protos';
const dist = process.env.BENCH_DIST ?? new URL('../dist/', import.meta.url).pathname;
const { createServer } = await import(`${dist}/server.js`);
const { repositoryPath } = await import(`${dist}/repository-path.js`);

const [repo, roundsArg] = process.argv.slice(2);
if (!repo) throw new Error('usage: read-paths.mjs <bare repo> [rounds]');
const rounds = Number(roundsArg ?? 15);
const ID = 'bench-repo';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'githost-bench-'));
const gitDir = repositoryPath(dataDir, ID);
mkdirSync(path.dirname(gitDir), { recursive: true });
symlinkSync(path.resolve(repo), gitDir);
const head = execFileSync('git', [`--git-dir=${repo}`, 'rev-parse', 'main']).toString().trim();

// BENCH_NO_CACHE=1 turns the tree listing and log page caches off, to time the cold paths.
const noCache = process.env.BENCH_NO_CACHE === '1';
const service = createServer(
  { DATA_DIR: dataDir, HTTP_PORT: 0, GRPC_PORT: 0, BIND_HOST: '127.0.0.1', GITHOST_INTERNAL_SECRET: 'bench-secret-0123456789', AMQP_URL: undefined, GITHOST_EVENTS_EXCHANGE: 'x' },
  { housekeeping: { delayMs: 3_600_000 }, readCache: noCache ? { treeBytes: 0, logBytes: 0 } : {} },
);
const { grpcPort } = await service.start();
const client = createStorageClient(`127.0.0.1:${grpcPort}`);
const unary = (m, req) => callUnary(client, m, { repository_id: ID, ...req });
console.log(noCache ? 'caches off' : 'caches on');

async function time(label, fn) {
  const first = process.hrtime.bigint();
  await fn();
  const cold = Number(process.hrtime.bigint() - first) / 1e6;
  const ms = [];
  for (let i = 0; i < rounds; i++) {
    const t = process.hrtime.bigint();
    await fn();
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  ms.sort((a, b) => a - b);
  const p = (q) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(2);
  console.log(`${label.padEnd(44)} first ${cold.toFixed(2).padStart(8)} ms   median ${p(0.5).padStart(8)} ms   p90 ${p(0.9).padStart(8)} ms`);
}
const spawnGit = (...args) => () => {
  const r = spawnSync('git', [`--git-dir=${repo}`, ...args], { maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(r.stderr.toString());
};

let entries = 0;
await time('ReadTree wide/ (100k entries)', async () => {
  entries = (await unary(client.ReadTree, { commit_oid: head, path: 'wide' })).count;
});
console.log(`  (${entries} entries)`);
await time('  git ls-tree --long -z (spawned)', spawnGit('ls-tree', '--long', '-z', `${head}:wide`));
await time('ReadTree mid/ (561 entries)', () => unary(client.ReadTree, { commit_oid: head, path: 'mid' }));
await time('ReadTree small/ (20 entries)', () => unary(client.ReadTree, { commit_oid: head, path: 'small' }));
await time('  git ls-tree --long -z mid (spawned)', spawnGit('ls-tree', '--long', '-z', `${head}:mid`));
const blob = (p) => () => collectStream(client.ReadBlob({ repository_id: ID, commit_oid: head, path: p, max_bytes: 0 }));
await time('ReadBlob ten-k.txt (10 KB)', blob('ten-k.txt'));
await time('ReadBlob one-m.bin (1 MB)', blob('one-m.bin'));
await time('ReadBlob wide/f050000.txt (in 100k dir)', blob('wide/f050000.txt'));
await time('  git cat-file blob 1 MB (spawned)', spawnGit('cat-file', 'blob', `${head}:one-m.bin`));
await time('ReadCommit', () => unary(client.ReadCommit, { revision: head }));
await time('ListCommits limit 100', () => unary(client.ListCommits, { commit_oid: head, limit: 100, offset: 0 }));
await time('ListCommits limit 100 offset 40000', () => unary(client.ListCommits, { commit_oid: head, limit: 100, offset: 40000 }));
await time('  git log -n 100 (spawned)', spawnGit('log', '-n', '100', head));
await time('ListRefs', () => unary(client.ListRefs, { prefixes: [] }));
await time('  git for-each-ref (spawned)', spawnGit('for-each-ref'));
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);

client.close();
await service.stop();
rmSync(dataDir, { recursive: true, force: true });

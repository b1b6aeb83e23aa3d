import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { encodeIdentity } from '@githost/identity';
import { cleanupWorkdirs, commitAll, createTestRepository, git, makeWorkdir, rpc, startTestStorage, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-modes';
let s: TestStorage;
let umask: number;

/** Every entry under `root`, with its permission bits (directories end in '/'). */
async function modesUnder(root: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir)) {
      const full = path.join(dir, entry);
      const st = await lstat(full);
      const rel = path.relative(root, full);
      out.set(st.isDirectory() ? `${rel}/` : rel, st.mode & 0o777);
      if (st.isDirectory()) await walk(full);
    }
  };
  await walk(root);
  return out;
}

beforeAll(async () => {
  // The usual umask of a shell: the modes below must come from the service, not from the caller.
  umask = process.umask(0o022);
  s = await startTestStorage();
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
  process.umask(umask);
});

describe('files under DATA_DIR', () => {
  it('when a repository is created and pushed to over HTTP (loose and packed objects), then every directory is 0700, every file 0600 or read-only 0400, hooks 0700', async () => {
    await createTestRepository(s, ID);
    const work = await makeWorkdir();
    // Enough objects that receive-pack keeps a pack (with its index) rather than loose objects.
    await writeFiles(work, Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`f${i}.txt`, `file ${i}\n`])));
    await commitAll(work, 'many files\n');
    await writeFiles(work, { 'small.txt': 'loose\n' });
    await commitAll(work, 'one more\n');
    const identity = encodeIdentity(
      { principal: { user_id: 'u-alice', username: 'alice', email: 'alice@example.com', is_admin: false }, repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: true, shard: 'default', permission: 'write', owner_id: 'u-alice' }, request_id: 'req-modes', issued_at: Date.now() },
      s.secret,
    );
    const headers = Object.entries(identity).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
    await git(work, ...headers, 'push', '-q', `http://127.0.0.1:${s.httpPort}/alice/demo.git`, 'HEAD~1:refs/heads/main');
    await git(work, ...headers, '-c', 'transfer.unpackLimit=1000', 'push', '-q', `http://127.0.0.1:${s.httpPort}/alice/demo.git`, 'HEAD:refs/heads/main');
    await rpc(s.client, s.client.CreateRepository, { repository_id: 'repo-modes-2', default_branch: 'main' });

    const modes = await modesUnder(s.dataDir);
    const repo = path.relative(s.dataDir, s.repoPath(ID));
    // What the walk must have seen, so the assertions below are about real files.
    expect([...modes.keys()]).toEqual(expect.arrayContaining(['hooks/', 'hooks/pre-receive', 'hooks/reference-transaction', 'repos/', 'journal/', 'pending/', `${repo}/`, `${repo}/HEAD`, `${repo}/config`, `${repo}/objects/`]));
    expect([...modes.keys()].some((k) => k.startsWith('journal/') && k !== 'journal/')).toBe(true);
    expect([...modes.keys()].some((k) => /objects\/pack\/pack-[0-9a-f]+\.pack$/.test(k))).toBe(true);
    expect([...modes.keys()].some((k) => /objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(k))).toBe(true);

    const wrong = [...modes].filter(([name, mode]) => {
      if (name.endsWith('/')) return mode !== 0o700;
      if (name.startsWith('hooks/')) return mode !== 0o700;
      return mode !== 0o600 && mode !== 0o400;
    });
    expect(wrong.map(([name, mode]) => `${name} ${mode.toString(8)}`)).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { encodeIdentity, type Identity, type Permission } from '@githost/identity';
import { gitHelper } from '../src/git/command.js';
import { cleanupWorkdirs, commitAll, createTestRepository, git, gitWithEnv, makeWorkdir, startTestStorage, testGitEnv, writeFiles, type TestStorage } from '../src/testing.js';

const ID = 'repo-http';
let s: TestStorage;
let base: string;

function identity(permission: Permission, username: string | null = 'alice'): Identity {
  return {
    principal: username ? { user_id: `u-${username}`, username, email: `${username}@example.com`, is_admin: false } : null,
    repo: { id: ID, owner: 'alice', name: 'demo', default_branch: 'main', private: false, shard: 'default', permission, owner_id: 'u-alice' },
    request_id: 'req-1',
    issued_at: Date.now(),
  };
}

/** git -c http.extraHeader=... for the signed identity the gateway would add. */
function headerArgs(permission: Permission, username: string | null = 'alice'): string[] {
  const h = encodeIdentity(identity(permission, username), s.secret);
  return Object.entries(h).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
}

const bareGit = (...args: string[]) => execFileSync('git', [`--git-dir=${s.repoPath(ID)}`, ...args]).toString();

beforeAll(async () => {
  s = await startTestStorage();
  await createTestRepository(s, ID);
  base = `http://127.0.0.1:${s.httpPort}/alice/demo.git`;
});

afterAll(async () => {
  await s.stop();
  await cleanupWorkdirs();
});

describe('git smart HTTP', () => {
  let work: string;
  let c1: string;
  let c2: string;

  it('when a writer pushes a new branch over HTTP, then the ref exists and one push event is journaled with the exact payload', async () => {
    work = await makeWorkdir();
    await writeFiles(work, { 'a.txt': 'one\n' });
    c1 = await commitAll(work, 'first commit\n', { date: '2024-05-06T07:08:09+02:00', author: { name: 'Ann Author', email: 'ann@example.com' } });
    await writeFiles(work, { 'b.txt': 'two\n' });
    c2 = await commitAll(work, 'second commit\n\nbody\n', { date: '2024-05-07T00:00:00+00:00' });
    await git(work, ...headerArgs('write'), 'push', base, 'main');
    expect(bareGit('rev-parse', 'refs/heads/main').trim()).toBe(c2);

    const events = await s.service.journal.pending();
    expect(events).toHaveLength(1);
    const e = events[0]!;
    expect(e).toMatchObject({ kind: 'push', repository: { id: ID, owner: 'alice', name: 'demo' }, request_id: 'req-1' });
    expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(e.payload).toEqual({
      event: 'push',
      ref: 'refs/heads/main',
      before: '0'.repeat(40),
      after: c2,
      created: true,
      deleted: false,
      forced: false,
      repository: { owner: 'alice', name: 'demo', full_name: 'alice/demo' },
      sender: { username: 'alice' },
      commits: [
        { id: c1, message: 'first commit\n', author: { name: 'Ann Author', email: 'ann@example.com' }, timestamp: '2024-05-06T07:08:09+02:00' },
        { id: c2, message: 'second commit\n\nbody\n', author: { name: 'Test Author', email: 'author@example.com' }, timestamp: '2024-05-07T00:00:00+00:00' },
      ],
    });
    for (const e of events) await s.service.journal.remove(e.id);
  });

  it('when a reader clones over HTTP (protocol v2 and v0), then the clone has the pushed history', async () => {
    for (const version of ['2', '0']) {
      const dir = await makeWorkdir();
      await git(dir, ...headerArgs('read', null), '-c', `protocol.version=${version}`, 'clone', '-q', base, 'clone');
      expect((await git(`${dir}/clone`, 'rev-parse', 'HEAD')).trim()).toBe(c2);
      expect((await git(`${dir}/clone`, 'show', 'HEAD:a.txt'))).toBe('one\n');
    }
  });

  it('when a fetch follows a later push, then only the new commit comes and the event lists only it', async () => {
    const dir = await makeWorkdir();
    await git(dir, ...headerArgs('read'), 'clone', '-q', base, 'c');
    await writeFiles(work, { 'a.txt': 'three\n' });
    const c3 = await commitAll(work, 'third');
    await git(work, ...headerArgs('write'), 'push', '-q', base, 'main');
    await git(`${dir}/c`, ...headerArgs('read'), 'fetch', '-q', 'origin');
    expect((await git(`${dir}/c`, 'rev-parse', 'origin/main')).trim()).toBe(c3);
    const events = await s.service.journal.pending();
    expect(events.map((e) => e.payload)).toMatchObject([{ before: c2, after: c3, created: false, forced: false, commits: [{ id: c3, message: 'third\n' }] }]);
    for (const e of events) await s.service.journal.remove(e.id);
  });

  it('when a forced non-fast-forward push to the default branch arrives, then git reports the protection refusal and the branch does not move', async () => {
    const before = bareGit('rev-parse', 'refs/heads/main').trim();
    const dir = await makeWorkdir();
    await writeFiles(dir, { 'x.txt': 'unrelated\n' });
    await commitAll(dir, 'rewrite');
    const err = await git(dir, ...headerArgs('write'), 'push', '--force', base, 'main').catch((e: Error) => e.message);
    expect(err).toContain('remote: protected branch main: force push not allowed');
    expect(err).toContain('! [remote rejected] main -> main (pre-receive hook declined)');
    expect(bareGit('rev-parse', 'refs/heads/main').trim()).toBe(before);
    expect(await s.service.journal.pending()).toEqual([]);
  });

  it('when a client asks for a push advertisement, then the git helper starts before the push comes (its events are listed with runGit)', async () => {
    const helperGone = async () => {
      gitHelper().close();
      for (let i = 0; i < 100 && gitHelper().pid !== undefined; i++) await new Promise((r) => setTimeout(r, 20));
      expect(gitHelper().pid).toBeUndefined();
    };
    const advertisement = (service: string) => {
      const h = encodeIdentity(identity('write'), s.secret);
      return fetch(`${base}/info/refs?service=${service}`, { headers: h }).then(async (res) => ({ status: res.status, body: await res.text() }));
    };
    await helperGone();
    const answer = await advertisement('git-receive-pack');
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('refs/heads/main');
    expect(gitHelper().pid).toEqual(expect.any(Number));
  });

  it('when a reader pushes, then 403 and nothing changes', async () => {
    const before = bareGit('rev-parse', 'refs/heads/main').trim();
    await writeFiles(work, { 'a.txt': 'four\n' });
    await commitAll(work, 'fourth');
    const err = await git(work, ...headerArgs('read'), 'push', base, 'main').catch((e: Error) => e.message);
    expect(err).toMatch(/403/);
    expect(bareGit('rev-parse', 'refs/heads/main').trim()).toBe(before);
    const res = await fetch(`${base}/info/refs?service=git-receive-pack`, { headers: encodeIdentity(identity('read'), s.secret) });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'You do not have write access to this repository' });
  });

  it('when an anonymous caller asks to push, then 401 with a Basic challenge', async () => {
    const res = await fetch(`${base}/info/refs?service=git-receive-pack`, { headers: encodeIdentity(identity('read', null), s.secret) });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="githost"');
  });

  it('when the URL names another repository than the signed identity, then 404 Repository not found', async () => {
    const res = await fetch(`http://127.0.0.1:${s.httpPort}/bob/other.git/info/refs?service=git-upload-pack`, { headers: encodeIdentity(identity('write'), s.secret) });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Repository not found' });
  });

  it('when no signed identity is sent, then 401', async () => {
    const res = await fetch(`${base}/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(401);
  });

  it('when an upload-pack request body is gzip-encoded, then the pack comes back', async () => {
    const tip = bareGit('rev-parse', 'refs/heads/main').trim();
    const body = gzipSync(Buffer.from(`0032want ${tip}\n00000009done\n`));
    const res = await fetch(`${base}/git-upload-pack`, {
      method: 'POST',
      headers: { ...encodeIdentity(identity('read'), s.secret), 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 8).toString()).toBe('0008NAK\n');
    expect(bytes.includes(Buffer.from('PACK'))).toBe(true);
  });

  it('when a push or fetch body is malformed gzip, then 400 JSON before git runs, nothing moves and the service keeps serving', async () => {
    const refsBefore = bareGit('for-each-ref');
    for (const [service, permission] of [['git-receive-pack', 'write'], ['git-upload-pack', 'read']] as const) {
      for (const body of [Buffer.from('0000 not gzip'), Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff])]) {
        const res = await fetch(`${base}/${service}`, {
          method: 'POST',
          headers: { ...encodeIdentity(identity(permission), s.secret), 'content-type': `application/x-${service}-request`, 'content-encoding': 'gzip' },
          body,
        });
        expect([service, res.status, await res.json()]).toEqual([service, 400, { error: 'Malformed gzip request body' }]);
      }
    }
    const br = await fetch(`${base}/git-upload-pack`, {
      method: 'POST',
      headers: { ...encodeIdentity(identity('read'), s.secret), 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'br' },
      body: 'x',
    });
    expect([br.status, await br.json()]).toEqual([415, { error: 'Unsupported Content-Encoding: br' }]);
    expect(bareGit('for-each-ref')).toBe(refsBefore);
    const refs = await fetch(`${base}/info/refs?service=git-upload-pack`, { headers: encodeIdentity(identity('read'), s.secret) });
    expect(refs.status).toBe(200);
  });

  it('when a branch is deleted over HTTP, then the event says deleted with no commits', async () => {
    await git(work, 'branch', '-f', 'topic', 'HEAD~1');
    await git(work, ...headerArgs('write'), 'push', '-q', base, 'topic');
    for (const e of await s.service.journal.pending()) await s.service.journal.remove(e.id);
    await gitWithEnv(work, {}, ...headerArgs('write'), 'push', '-q', base, ':topic');
    const events = await s.service.journal.pending();
    expect(events.map((e) => e.payload)).toMatchObject([{ ref: 'refs/heads/topic', after: '0'.repeat(40), deleted: true, created: false, commits: [] }]);
  });

  it('when one push moves many refs, then each gets its own event with its own new commits, all journaled in one file', async () => {
    for (const e of await s.service.journal.pending()) await s.service.journal.remove(e.id);
    const old = bareGit('rev-parse', 'refs/heads/main').trim();
    await writeFiles(work, { 'many.txt': 'many\n' });
    const fresh = await commitAll(work, 'fresh');
    const newCommits = (await git(work, 'rev-list', '--reverse', fresh, '--not', old)).trim().split('\n');
    expect(newCommits.at(-1)).toBe(fresh);
    await git(work, 'branch', '-f', 'doomed', old);
    await git(work, ...headerArgs('write'), 'push', '-q', base, 'doomed');
    for (const e of await s.service.journal.pending()) await s.service.journal.remove(e.id);
    // refs on existing commits, two refs sharing a new tip, and a deletion, in one push
    const refs = ['old-1:refs/heads/many/a', 'old-2:refs/heads/many/b', 'fresh-1:refs/heads/many/c', 'fresh-2:refs/heads/many/d', ':refs/heads/doomed'];
    const specs = refs.map((r) => r.replace(/^old-\d/, old).replace(/^fresh-\d/, fresh));
    await git(work, ...headerArgs('write'), 'push', '-q', base, ...specs);
    const byRef = new Map((await s.service.journal.pending()).map((e) => [(e.payload as { ref: string }).ref, e.payload as { after: string; commits: Array<{ id: string }> }]));
    expect([...byRef.keys()].sort()).toEqual(['refs/heads/doomed', 'refs/heads/many/a', 'refs/heads/many/b', 'refs/heads/many/c', 'refs/heads/many/d']);
    expect(byRef.get('refs/heads/many/a')).toMatchObject({ after: old, commits: [] });
    expect(byRef.get('refs/heads/many/b')).toMatchObject({ after: old, commits: [] });
    expect(byRef.get('refs/heads/many/c')!.commits.map((c) => c.id)).toEqual(newCommits);
    expect(byRef.get('refs/heads/many/d')!.commits.map((c) => c.id)).toEqual(newCommits);
    expect(byRef.get('refs/heads/doomed')).toMatchObject({ commits: [] });
    expect(readdirSync(s.service.journal.dir).filter((n) => !n.startsWith('.'))).toHaveLength(1);

    // a push whose refs all sit on commits the repository already has: no commits anywhere
    for (const e of await s.service.journal.pending()) await s.service.journal.remove(e.id);
    await git(work, ...headerArgs('write'), 'push', '-q', base, `${old}:refs/heads/many/e`, `${fresh}:refs/heads/many/f`);
    const again = await s.service.journal.pending();
    expect(again.map((e) => (e.payload as { commits: unknown[] }).commits)).toEqual([[], []]);
    for (const e of again) await s.service.journal.remove(e.id);
  });

  it('when one push moves more refs than rev-list is told to exclude by name, then the new commits are still exactly the new ones', async () => {
    for (const e of await s.service.journal.pending()) await s.service.journal.remove(e.id);
    const old = bareGit('rev-parse', 'refs/heads/main').trim();
    await writeFiles(work, { 'wide.txt': 'wide\n' });
    const fresh = await commitAll(work, 'wide push');
    // 70 refs on an existing commit and one on a new commit: past the 64 refs named to --exclude
    const specs = [...Array.from({ length: 70 }, (_, i) => `${old}:refs/heads/wide/old-${i}`), `${fresh}:refs/heads/wide/new`];
    await git(work, ...headerArgs('write'), 'push', '-q', base, ...specs);
    const events = await s.service.journal.pending();
    expect(events).toHaveLength(71);
    const commitsOf = (ref: string) => (events.find((e) => (e.payload as { ref: string }).ref === ref)!.payload as { commits: Array<{ id: string }> }).commits.map((c) => c.id);
    expect(commitsOf('refs/heads/wide/new')).toEqual([fresh]);
    expect(commitsOf('refs/heads/wide/old-0')).toEqual([]);
    expect(commitsOf('refs/heads/wide/old-69')).toEqual([]);
    for (const e of events) await s.service.journal.remove(e.id);
  });

  /** A receive-pack request as a client sends it: commands (capabilities on the first), a flush, an empty pack. */
  function receivePackRequest(commands: string[], capabilities: string): Buffer {
    const pkt = (line: string) => (Buffer.byteLength(line) + 4).toString(16).padStart(4, '0') + line;
    const lines = commands.map((c, i) => pkt(i === 0 && capabilities ? `${c}\0${capabilities}\n` : `${c}\n`));
    const header = Buffer.from([0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0]);
    return Buffer.concat([Buffer.from(`${lines.join('')}0000`), header, createHash('sha1').update(header).digest()]);
  }

  async function postReceivePack(body: Buffer): Promise<string> {
    const res = await fetch(`${base}/git-receive-pack`, {
      method: 'POST',
      headers: { ...encodeIdentity(identity('write'), s.secret), 'content-type': 'application/x-git-receive-pack-request' },
      body,
    });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer()).toString('latin1');
  }

  // A command whose old value is stale (another push moved the ref to the same new value between
  // the client's ref advertisement and its request) must not become a second event for that move.
  it.each([
    ['asks for report-status over side-band (the transport records the commands and reads the report)', 'report-status side-band-64k'],
    ['asks for report-status without side-band', 'report-status'],
    ['asks for no report (git\'s reference-transaction hook records)', 'ofs-delta'],
  ])('when a client that %s pushes a stale command and a good one, then only the good one is an event', async (_what, capabilities) => {
    const old = bareGit('rev-parse', 'refs/heads/main~1').trim();
    const tip = bareGit('rev-parse', 'refs/heads/main').trim();
    const suffix = randomBytes(3).toString('hex');
    bareGit('update-ref', `refs/heads/stale-${suffix}`, tip);
    for (const e of await s.service.journal.pending()) await s.service.journal.remove(e.id);
    const answer = await postReceivePack(receivePackRequest([`${old} ${tip} refs/heads/stale-${suffix}`, `${'0'.repeat(40)} ${old} refs/heads/good-${suffix}`], capabilities));
    if (capabilities.includes('report-status')) {
      expect(answer).toContain(`ng refs/heads/stale-${suffix}`);
      expect(answer).toContain(`ok refs/heads/good-${suffix}`);
    }
    expect(bareGit('rev-parse', `refs/heads/good-${suffix}`).trim()).toBe(old);
    const events = await s.service.journal.pending();
    expect(events.map((e) => (e.payload as { ref: string }).ref)).toEqual([`refs/heads/good-${suffix}`]);
    for (const e of events) await s.service.journal.remove(e.id);
    expect(readdirSync(s.service.context.intents.dir)).toEqual([]);
  });
});

describe('git smart HTTP on an empty repository and a larger file', () => {
  it('when an empty repository is cloned, then git warns it is empty and succeeds', async () => {
    await createTestRepository(s, 'repo-empty');
    const h = encodeIdentity({ ...identity('read'), repo: { ...identity('read').repo!, id: 'repo-empty', name: 'empty' } }, s.secret);
    const args = Object.entries(h).flatMap(([k, v]) => ['-c', `http.extraHeader=${k}: ${v}`]);
    const dir = await makeWorkdir();
    const out = await new Promise<string>((resolve, reject) =>
      execFile('git', [...args, 'clone', `http://127.0.0.1:${s.httpPort}/alice/empty.git`, 'e'], { cwd: dir, env: testGitEnv() }, (err, _o, stderr) => (err ? reject(err) : resolve(stderr))),
    );
    expect(out).toContain('You appear to have cloned an empty repository');
  });

  it('when a 4 MiB incompressible file is pushed and cloned over HTTP, then the bytes survive the streams intact', async () => {
    const dir = await makeWorkdir();
    const data = randomBytes(4 * 1024 * 1024);
    await writeFiles(dir, { 'blob.bin': data });
    const c = await commitAll(dir, 'big');
    await git(dir, ...headerArgs('write'), 'push', '-q', base, 'HEAD:refs/heads/big');
    const clone = await makeWorkdir();
    await git(clone, ...headerArgs('read'), 'clone', '-q', '--branch', 'big', base, 'c');
    expect((await git(`${clone}/c`, 'rev-parse', 'HEAD')).trim()).toBe(c);
    expect(createHash('sha256').update(await readFile(`${clone}/c/blob.bin`)).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });
});

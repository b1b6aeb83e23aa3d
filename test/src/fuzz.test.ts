import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { generateSshKey } from '@githost/test-support';
import { parse } from 'yaml';
import {
  addCollaborator, api, commitFiles, createRepo, createUser, git, makeWorkdir, OPENAPI_FILE, pushUrl, startTestGithost,
  type TestGithost, type TestUser,
} from './support/index.js';

/**
 * Schema-driven fuzzing of every operation in openapi/openapi.yaml: valid and invalid path and
 * query parameters, bodies, headers and encodings, sent as an anonymous client, a stranger, a
 * reader and a writer. Whatever comes, the answer is never a 5xx, every 4xx carries a JSON error
 * body, and a refused write changes nothing the API shows. Bounded in time; the seed is printed
 * on failure (rerun with GITHOST_FUZZ_SEED=<seed>).
 */
const TIME_BUDGET_MS = 20_000;
const SEED = process.env.GITHOST_FUZZ_SEED ? Number(process.env.GITHOST_FUZZ_SEED) : Date.now() % 2 ** 31;

interface Operation {
  method: string;
  template: string;
  tag: string;
  query: { name: string; values: unknown[] }[];
  bodyProperties?: Record<string, { type?: unknown; enum?: unknown[] }>;
  binaryBody: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): Operation[] {
  type Schema = { type?: unknown; enum?: unknown[]; properties?: Record<string, Schema> };
  type Param = { $ref?: string; name?: string; in?: string; schema?: Schema };
  const doc = parse(readFileSync(OPENAPI_FILE, 'utf8')) as {
    paths: Record<string, Record<string, unknown> & { parameters?: Param[] }>;
    components: { parameters: Record<string, Param> };
  };
  const resolve = (p: Param): Param => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!]! : p);
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as { tags?: string[]; parameters?: Param[]; requestBody?: { content?: Record<string, { schema?: Schema }> } } | undefined;
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(resolve);
      const content = op.requestBody?.content ?? {};
      const json = content['application/json']?.schema;
      out.push({
        method: method.toUpperCase(),
        template,
        tag: op.tags?.[0] ?? 'meta',
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name!, values: p.schema?.enum ?? ['1', 'open', 'all'] })),
        bodyProperties: json?.properties as Operation['bodyProperties'],
        binaryBody: Object.keys(content).some((m) => !m.includes('json')),
      });
    }
  }
  return out;
}

let gh: TestGithost;
let alice: TestUser;
const actors: Record<string, string | undefined> = {};
/** Who each actor is (beforeAll), for reading what their refused writes could have changed. */
const USERNAME_OF: Record<string, string> = { stranger: 'carol', reader: 'bob', writer: 'dave' };
const known: Record<string, string> = {};

function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; contentType: string; text: string }> {
  return new Promise((resolve, reject) => {
    const h = { ...headers };
    if (body !== undefined) h['content-length'] = String(body.length);
    const req = request({ host: '127.0.0.1', port: gh.port, path, method, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Reads as alice (and the admin): what a refused write of this kind could have changed. */
async function snapshot(tag: string, actor: string): Promise<unknown> {
  const read = async (path: string, token = alice.token) => {
    const res = await send('GET', path, { authorization: `Bearer ${token}` });
    return { status: res.status, body: res.text };
  };
  const repo = '/api/repos/alice/demo';
  // Tokens show when they were last used, which every request of their owner changes.
  const tokens = async (user: string) => {
    const res = await read(`/api/admin/users/${user}/tokens`, gh.adminToken);
    const list = JSON.parse(res.body) as Array<Record<string, unknown>>;
    return Array.isArray(list) ? list.map(({ last_used_at: _, ...rest }) => rest) : list;
  };
  switch (tag) {
    case 'accounts':
      return [await read('/api/admin/users?per_page=100', gh.adminToken), await tokens(actor === 'anonymous' ? 'alice' : actor), await read(`/api/admin/users/${USERNAME_OF[actor] ?? 'alice'}/keys`, gh.adminToken)];
    case 'repositories':
      return [await read(repo), await read(`${repo}/collaborators`), await read(`${repo}/branch-protections`), await read(`${repo}/keys`), await read('/api/users/alice/repos'), await read('/api/admin/users?per_page=100', gh.adminToken)];
    case 'merge-requests':
      return [await read(`${repo}/merge-requests?state=all`), await read(`${repo}/merge-requests/1`), await read(`${repo}/activity`)];
    case 'statuses':
      return [await read(`${repo}/commits/main/statuses`), await read(`${repo}/commits/feature/statuses`)];
    case 'webhooks': {
      const hooks = JSON.parse((await read(`${repo}/webhooks`)).body) as Array<Record<string, unknown>>;
      return hooks.map(({ id, url, events, active }) => ({ id, url, events, active }));
    }
    default:
      return [await read(`${repo}/branches`), await read(`${repo}/tags`)];
  }
}

/** Path parameter values: the fixture's real ones, and ones that break every rule. */
const hostile = fc.constantFrom('%ff', '%e0%a4', '%', '%zz', '%00', 'a%00b', '..', '.', '-x', '%2e%2e', '%2F', 'x'.repeat(300), '0', '-1', '1e3', '99999999999999999999', 'ñ', '%C3%B1', '~', '@', ':');
function pathValue(name: string): fc.Arbitrary<string> {
  const real = known[name] ?? 'main';
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(real) },
    { weight: 3, arbitrary: hostile },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s) || 'x') },
  );
}

const stringValue = fc.oneof(
  fc.constantFrom('x', 'main', 'feature', 'http://127.0.0.1:9/h', 'push', 'read', 'write', 'approve', 'comment', 'success', 'ci/build', 'a@example.com', 'README.md', 'squash', 'closed', 'open'),
  fc.string({ maxLength: 20 }),
  fc.string({ maxLength: 8 }).map((s) => `${s}\u0000${s}`),
  fc.constant('y'.repeat(5000)),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(stringValue, fc.integer({ min: -5, max: 1e6 }), fc.boolean(), fc.constant(null), fc.array(stringValue, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), stringValue, { maxKeys: 2 }));

function bodyValue(op: Operation): fc.Arbitrary<unknown> {
  const props = op.bodyProperties ?? {};
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, schema] of Object.entries(props)) {
    const valid = schema.enum ? fc.constantFrom(...schema.enum) : String(schema.type).includes('integer') ? fc.integer({ min: -2, max: 200 }) : String(schema.type).includes('boolean') ? fc.boolean() : stringValue;
    fields[name] = fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: anyValue });
  }
  return fc.oneof({ weight: 4, arbitrary: fc.record(fields, { requiredKeys: [] }) }, { weight: 1, arbitrary: anyValue });
}

type Encoding = 'identity' | 'gzip' | 'deflate' | 'bad-gzip' | 'br' | 'charset' | 'text' | 'malformed-json' | 'none';
const encodings = fc.constantFrom<Encoding>('identity', 'identity', 'identity', 'gzip', 'deflate', 'bad-gzip', 'br', 'charset', 'text', 'malformed-json', 'none');

interface FuzzRequest {
  op: Operation;
  actor: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function requestFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const params = fc.tuple(...names.map(pathValue));
  const query = fc.array(
    fc.oneof(
      ...(op.query.length ? [fc.constantFrom(...op.query).chain((q) => fc.oneof(fc.constantFrom(...q.values.map(String)), hostile).map((v) => `${q.name}=${v}`))] : []),
      fc.tuple(fc.constantFrom('state', 'page', 'per_page', 'limit', 'x'), hostile).map(([k, v]) => `${k}=${v}`),
    ),
    { maxLength: 2 },
  );
  return fc.record({
    actor: fc.constantFrom('anonymous', 'stranger', 'reader', 'writer'),
    values: params,
    query,
    body: op.binaryBody ? fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) : bodyValue(op).map((v) => Buffer.from(JSON.stringify(v) ?? 'null')),
    encoding: encodings,
    extra: fc.option(fc.constantFrom<[string, string]>(['if-none-match', '"x"'], ['accept', 'text/html'], ['accept-encoding', 'br'], ['x-githost-identity', 'forged'], ['authorization', 'Bearer not-a-token'], ['authorization', 'Basic %%%']), { nil: undefined }),
  }).map(({ actor, values, query, body, encoding, extra }) => {
    let i = 0;
    const path = op.template.replace(/\{[^}]+\}/g, () => values[i++]!) + (query.length ? `?${query.join('&')}` : '');
    const headers: Record<string, string> = {};
    const token = actors[actor];
    if (token) headers.authorization = op.tag === 'git' ? `Basic ${Buffer.from(`x:${token}`).toString('base64')}` : `Bearer ${token}`;
    if (extra) headers[extra[0]] = extra[1];
    const sendsBody = op.method !== 'GET' && op.method !== 'DELETE' && encoding !== 'none';
    if (!sendsBody) return { op, actor, path, headers };
    headers['content-type'] = op.binaryBody ? `application/x-${op.template.split('/').pop()}-request` : 'application/json';
    let payload = body;
    switch (encoding) {
      case 'gzip': headers['content-encoding'] = 'gzip'; payload = gzipSync(body); break;
      case 'deflate': headers['content-encoding'] = 'deflate'; payload = deflateSync(body); break;
      case 'bad-gzip': headers['content-encoding'] = 'gzip'; payload = Buffer.concat([Buffer.from([0x1f, 0x8b]), body]); break;
      case 'br': headers['content-encoding'] = 'br'; break;
      case 'charset': headers['content-type'] = 'application/json; charset=bogus'; break;
      case 'text': headers['content-type'] = 'text/plain'; break;
      case 'malformed-json': payload = Buffer.concat([body, Buffer.from('{')]); break;
    }
    return { op, actor, path, headers, body: payload };
  });
}

beforeAll(async () => {
  gh = await startTestGithost();
  alice = await createUser(gh, 'alice');
  const bob = await createUser(gh, 'bob');
  const carol = await createUser(gh, 'carol');
  const dave = await createUser(gh, 'dave');
  await createRepo(gh, alice.token, 'demo');
  await addCollaborator(gh, alice.token, 'alice', 'demo', 'bob', 'read');
  await addCollaborator(gh, alice.token, 'alice', 'demo', 'dave', 'write');
  const wd = makeWorkdir();
  const mainSha = await commitFiles(wd, { 'README.md': '# demo\n' }, 'first');
  await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'main');
  await git(wd, 'checkout', '-q', '-b', 'feature');
  await commitFiles(wd, { 'f.txt': 'f\n' }, 'feature');
  await git(wd, 'push', '-q', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'feature');
  const mr = await api(gh, 'POST', '/api/repos/alice/demo/merge-requests', { token: alice.token, body: { title: 'MR', source_branch: 'feature', target_branch: 'main' } });
  const hook = await api(gh, 'POST', '/api/repos/alice/demo/webhooks', { token: alice.token, body: { url: 'http://127.0.0.1:9/hook', events: 'push' } });
  const tokens = await api(gh, 'GET', '/api/user/tokens', { token: dave.token });
  const daveKey = await api(gh, 'POST', '/api/user/keys', { token: dave.token, body: { title: 'dave', key: (await generateSshKey('ed25519')).publicKey } });
  await api(gh, 'POST', '/api/repos/alice/demo/keys', { token: alice.token, body: { title: 'deploy', key: (await generateSshKey('ed25519')).publicKey } });
  Object.assign(actors, { anonymous: undefined, stranger: carol.token, reader: bob.token, writer: dave.token });
  Object.assign(known, {
    owner: 'alice', repo: 'demo', number: String(mr.body.number), webhook_id: String(hook.body.id), delivery_id: '1', username: 'bob',
    token_id: String(tokens.body[0].id), key_id: String(daveKey.body.id), pattern: 'main', sha: mainSha, ref: 'main', ref_and_path: 'main/README.md', basehead: 'main...feature',
  });
}, 120_000);

afterAll(async () => {
  await gh?.stop();
});

describe('every operation of the OpenAPI document, fuzzed', () => {
  it('when any request comes, valid or not, from anyone, then no 5xx, every 4xx is a JSON error and changes nothing', async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(40);
    const seen = new Set<string>();
    const property = fc.asyncProperty(fc.constantFrom(...ops).chain(requestFor), async (r) => {
      const write = r.op.method !== 'GET';
      const before = write ? await snapshot(r.op.tag, r.actor) : undefined;
      const res = await send(r.op.method, r.path, r.headers, r.body);
      seen.add(`${r.op.method} ${r.op.template}`);
      const where = `${r.op.method} ${r.path} as ${r.actor} (${JSON.stringify(r.headers)}) -> ${res.status} ${res.text.slice(0, 300)}`;
      if (res.status >= 500) throw new Error(`5xx: ${where}`);
      if (res.status < 400) return;
      // The LFS endpoints answer git-lfs's own error shape, `{message}` as application/vnd.git-lfs+json
      // (docs/decisions/lfs.md); a refusal the gateway makes before them is the usual `{error}`.
      const lfsError = r.path.includes('/info/lfs/') && res.contentType.startsWith('application/vnd.git-lfs+json');
      let error: unknown;
      try {
        const body = JSON.parse(res.text) as { error?: unknown; message?: unknown };
        error = lfsError ? body.message : body.error;
      } catch {
        // not JSON: reported below
      }
      if (!(lfsError || res.contentType.startsWith('application/json')) || typeof error !== 'string') throw new Error(`4xx without a JSON error body: ${where}`);
      if (write) {
        const after = await snapshot(r.op.tag, r.actor);
        if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`a refused write changed state: ${where}\nbefore: ${JSON.stringify(before)}\nafter: ${JSON.stringify(after)}`);
      }
    });
    try {
      await fc.assert(property, { seed: SEED, numRuns: 100_000, interruptAfterTimeLimit: TIME_BUDGET_MS, markInterruptAsFailure: false, endOnFailure: true });
    } catch (err) {
      throw new Error(`fuzz failed with seed ${SEED} (rerun: GITHOST_FUZZ_SEED=${SEED}):\n${(err as Error).message}`);
    }
    // Enough of the document was reached for the run to mean something.
    expect(seen.size).toBeGreaterThan(Math.min(20, ops.length / 2));
  }, 90_000);
});

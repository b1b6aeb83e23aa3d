import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { parse } from 'yaml';
import { api, createRepo, createUser, OPENAPI_FILE, openApiViolations, startTestGithost, type TestGithost } from './support/index.js';

const OPENAPI_DIR = path.dirname(OPENAPI_FILE);

/** The redocly CLI from this workspace's dependencies (hoisted to the root, or kept here). */
function redoclyBin(): string {
  const candidates = ['../../node_modules/.bin/redocly', '../node_modules/.bin/redocly'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new Error(`@redocly/cli is not installed (looked in ${candidates.join(', ')})`);
  return found;
}

function lint(): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    // No telemetry and no update check: the lint must not reach the network.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    execFile(redoclyBin(), ['lint', '--config', 'redocly.yaml'], { cwd: OPENAPI_DIR, env, timeout: 90_000 }, (err, stdout, stderr) => {
      if (err && typeof err.code !== 'number') return reject(err);
      resolve({ code: err ? (err.code as number) : 0, output: `${stdout}${stderr}` });
    });
  });
}

describe('the OpenAPI document', () => {
  it('when linted with redocly (recommended rules, every warning an error), then it passes', async () => {
    const result = await lint();
    expect({ code: result.code, output: result.code === 0 ? '' : result.output }).toEqual({ code: 0, output: '' });
    expect(result.output).toContain('Your API description is valid');
  });
});

describe('the OpenAPI checker every e2e answer goes through', () => {
  const tree = { ref: 'main', commit: 'a'.repeat(40), path: 'src', entries: [{ name: 'x', path: 'src/x', type: 'blob', mode: '100644', sha: 'b'.repeat(40), size: 3 }] };
  const json = 'application/json; charset=utf-8';

  it('when an answer matches its operation, then there is nothing to report, rest-of-path parameters included', () => {
    expect(openApiViolations('GET', '/api/repos/alice/demo/tree/feature/x/src?x=1', 200, json, tree)).toEqual([]);
    expect(openApiViolations('GET', '/api/repos/alice/demo/tree', 200, json, { ...tree, path: '' })).toEqual([]);
    expect(openApiViolations('DELETE', '/api/repos/alice/demo/webhooks/123', 204, null, null)).toEqual([]);
    expect(openApiViolations('GET', '/no/such/route', 404, json, { error: 'Not found' })).toEqual([]);
    const combined = { state: 'pending', sha: 'a'.repeat(40), total_count: 0, statuses: [] };
    expect(openApiViolations('GET', '/api/repos/alice/demo/commits/feature/x/status', 200, json, combined)).toEqual([]);
    expect(openApiViolations('GET', '/api/repos/alice/demo/commits/feature/x/statuses', 200, json, [])).toEqual([]);
  });

  it('when a body breaks its schema, a status is not documented, or an unknown path answers other than 404, then each is reported', () => {
    expect(openApiViolations('GET', '/api/repos/alice/demo/tree/main', 200, json, { ...tree, commit: 'short' })).toEqual([
      'GET /api/repos/alice/demo/tree/main -> 200: body/commit must match pattern "^[0-9a-f]{40}$" {"pattern":"^[0-9a-f]{40}$"}',
    ]);
    expect(openApiViolations('GET', '/api/user', 418, json, { error: 'teapot' })).toEqual([
      'GET /api/user -> 418: status not documented for GET /api/user (documented: 200, 401, 429, 503)',
    ]);
    expect(openApiViolations('GET', '/api/nothing', 200, json, {})).toHaveLength(1);
    expect(openApiViolations('PATCH', '/api/user', 200, json, {})).toHaveLength(1);
    expect(openApiViolations('DELETE', '/api/repos/alice/demo/webhooks/123', 204, 'text/plain', 'gone')).toHaveLength(1);
    expect(openApiViolations('GET', '/api/repos/alice/demo/raw/main/x.bin', 200, 'image/x-unheard-of', 'bytes')).toHaveLength(1);
  });
});

describe('the OpenAPI document served by the gateway', () => {
  let gh: TestGithost;
  beforeAll(async () => {
    gh = await startTestGithost();
  });
  afterAll(async () => {
    await gh?.stop();
  });

  it('when GET /api/openapi.json is asked without credentials, then it is openapi/openapi.yaml as JSON', async () => {
    const res = await api(gh, 'GET', '/api/openapi.json');
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'application/json; charset=utf-8']);
    expect(res.body).toEqual(parse(readFileSync(OPENAPI_FILE, 'utf8')));
  });

  it('when a client calls the API, then every answer carries its rate-limit budget', async () => {
    const alice = await createUser(gh, 'alice');
    await createRepo(gh, alice.token, 'demo');
    const mine = await api(gh, 'GET', '/api/repos/alice/demo', { token: alice.token });
    const anonymous = await api(gh, 'GET', '/api/repos/alice/demo/branches');
    expect([mine.status, mine.headers.get('ratelimit-limit'), mine.headers.get('ratelimit-policy')]).toEqual([200, '100000', '100000;w=60']);
    expect([anonymous.status, anonymous.body, anonymous.headers.get('ratelimit-limit')]).toEqual([200, { branches: [], default_branch: 'main' }, '100000']);
  });
});

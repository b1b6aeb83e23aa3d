import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { createHttpApp, finish, listen, type Listening } from '@githost/http';
import { createLogger } from '@githost/logging';
import { findOpenApiDocument } from '../openapi.js';
import { createTargetCheck, malformedEscapeAt, refuseMalformedTarget } from './request-target.js';
import { refuseUndecodableBody } from './body-encoding.js';
import { answerOversizedRequests } from './oversized-requests.js';
import { pathParameterNamer } from './path-parameters.js';

let server: Listening;

beforeAll(async () => {
  const app = createHttpApp({ service: 'checks', logger: createLogger('checks', 'silent'), json: false });
  app.use(refuseMalformedTarget(createTargetCheck(findOpenApiDocument())));
  app.use(refuseUndecodableBody);
  app.use((req, res) => void res.json({ passed: req.url.length }));
  server = await listen(finish(app), 0, '127.0.0.1');
  answerOversizedRequests(server.server);
});
afterAll(() => server.close());

function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const h = body === undefined ? headers : { 'content-length': String(Buffer.byteLength(body)), ...headers };
    const req = request({ host: '127.0.0.1', port: server.port, method, path, headers: h }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as unknown) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('request target checks', () => {
  it('when a path escape does not decode, then 400 naming the parameter; a webhook delete passes (CONTRACT §9)', async () => {
    expect(await send('GET', '/api/repos/alice/demo/merge-requests/%ff')).toEqual({ status: 400, body: { error: 'Malformed percent-encoding in the path (number)' } });
    expect(await send('DELETE', '/api/user/tokens/%e0%a4')).toEqual({ status: 400, body: { error: 'Malformed percent-encoding in the path (token_id)' } });
    expect((await send('DELETE', '/api/repos/alice/demo/webhooks/%ff')).status).toBe(200);
    expect((await send('GET', '/api/repos/alice/demo/blob/main/%C3%B1%20x')).status).toBe(200);
  });

  it('when a path or query parameter holds a NUL, then 400 naming it', async () => {
    expect(await send('GET', '/api/repos/alice/demo/merge-requests?state=%00')).toEqual({ status: 400, body: { error: 'Query parameter "state" must not contain NUL characters' } });
    expect(await send('GET', '/api/repos/alice/demo/webhooks/1%002')).toEqual({ status: 400, body: { error: 'Path parameter "webhook_id" must not contain NUL characters' } });
    expect(await send('GET', '/api/repos/alice/demo/blob/main/a%00')).toEqual({ status: 400, body: { error: 'Path parameter "ref_and_path" must not contain NUL characters' } });
  });

  it('when the URL or the header fields are over 16 KiB, then 414 / 431 JSON; far over, still JSON', async () => {
    expect(await send('GET', `/${'a'.repeat(17 * 1024)}`)).toEqual({ status: 414, body: { error: 'URI too long' } });
    expect(await send('GET', '/', { 'x-pad': 'p'.repeat(17 * 1024) })).toEqual({ status: 431, body: { error: 'Request header fields too large' } });
    expect(await send('GET', `/${'a'.repeat(200 * 1024)}`)).toEqual({ status: 431, body: { error: 'Request header fields too large' } });
    expect(await send('GET', `/${'a'.repeat(15 * 1024)}`)).toEqual({ status: 200, body: { passed: 15 * 1024 + 1 } });
  });
});

describe('header field count', () => {
  const fields = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-h${i}`, 'v'.repeat(10)]));
  it('when 2,500 small header fields (39 KB) are sent, then 431 JSON naming the count limit', async () => {
    const many = fields(2_500);
    expect(Object.entries(many).reduce((n, [k, v]) => n + k.length + v.length + 4, 0)).toBeGreaterThan(39_000);
    expect(await send('GET', '/', many)).toEqual({ status: 431, body: { error: 'Too many header fields (at most 100)' } });
  });

  it('when 100 header fields are sent, then they pass; 101, then 431', async () => {
    // node adds none of its own here but Host and Connection: 98 of ours plus those two.
    expect((await send('GET', '/', fields(98))).status).toBe(200);
    expect(await send('GET', '/', fields(99))).toEqual({ status: 431, body: { error: 'Too many header fields (at most 100)' } });
  });
});

describe('request body checks', () => {
  it('when the coding or the JSON charset cannot be decoded, then 415; what the services decode passes', async () => {
    const post = (headers: Record<string, string>, path = '/api/user/tokens') => send('POST', path, { 'content-type': 'application/json', ...headers }, '{}');
    expect(await post({ 'content-encoding': 'br' })).toEqual({ status: 415, body: { error: 'Unsupported Content-Encoding: br' } });
    expect(await post({ 'content-encoding': 'gzip, gzip' })).toEqual({ status: 415, body: { error: 'Unsupported Content-Encoding: gzip, gzip' } });
    expect(await post({ 'content-type': 'application/json; charset=bogus' })).toEqual({ status: 415, body: { error: 'Unsupported charset "BOGUS"' } });
    expect(await post({ 'content-encoding': 'deflate', 'content-type': 'application/json; charset="UTF-8"' })).toMatchObject({ status: 200 });
    expect(await post({ 'content-encoding': 'x-gzip' }, '/alice/demo.git/git-receive-pack')).toMatchObject({ status: 200 });
    expect(await post({ 'content-encoding': 'deflate' }, '/alice/demo.git/git-receive-pack')).toMatchObject({ status: 415 });
  });
});

describe('helpers', () => {
  it('when escapes are checked, then the first segment that does not decode is found', () => {
    expect([malformedEscapeAt('/a/%ff'), malformedEscapeAt('/a/%C3%B1'), malformedEscapeAt('/%/x')]).toEqual([3, -1, 1]);
  });
  it('when no document is found, then every parameter is the path', () => {
    expect(pathParameterNamer(undefined)('/api/user/tokens/1', 17)).toBe('path');
  });
});

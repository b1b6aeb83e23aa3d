import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import express from 'express';
import { repositoryJson, startWebBefore } from './support/web.js';

/**
 * A GET page's own calls run beside the viewer look-up (pages/router.ts): the stand-in API
 * answers `GET /api/user` only once the page's call has arrived, so a router that waited for the
 * viewer first would never get it (and the page would fail).
 */
const SESSION = 'ghsess_valid';
let running: Awaited<ReturnType<typeof startWebBefore>> | undefined;
let base: string;
const calls: { path: string; credential: string | undefined }[] = [];
let pageCallArrived: () => void = () => undefined;
let pageCall = new Promise<void>((resolve) => (pageCallArrived = resolve));

beforeAll(async () => {
  const app = express();
  const credentialOf = (req: express.Request) => /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  app.use((req, _res, next) => {
    calls.push({ path: req.path, credential: credentialOf(req) });
    next();
  });
  app.get('/api/user', (req, res) => {
    if (credentialOf(req) !== SESSION) return void res.status(401).json({ error: 'Authentication required' });
    const gaveUp = setTimeout(() => res.status(500).json({ error: 'the page call never came beside this one' }), 5_000);
    void pageCall.then(() => {
      clearTimeout(gaveUp);
      if (!res.headersSent) res.json({ id: 'u1', username: 'alice', email: null, is_admin: false });
    });
  });
  app.get('/api/users/:user/repos', (req, res) => {
    pageCallArrived();
    // A revoked session is refused on every call, as the gateway does.
    if (credentialOf(req) !== undefined && credentialOf(req) !== SESSION) return void res.status(401).json({ error: 'Authentication required' });
    const names = credentialOf(req) === SESSION ? ['public-one', 'secret-one'] : ['public-one'];
    res.json(names.map((name) => repositoryJson(req.params.user, name, name.startsWith('secret'))));
  });
  running = await startWebBefore(app);
  base = running.base;
});

afterAll(() => running?.close());

beforeEach(() => {
  calls.length = 0;
  pageCall = new Promise<void>((resolve) => (pageCallArrived = resolve));
});

describe('the viewer beside the page calls', () => {
  it('when signed in, then the page asks for its data while the viewer is looked up, both as the person, and shows both', async () => {
    const res = await fetch(`${base}/bob`, { headers: { cookie: `githost_session=${SESSION}` } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(calls).toEqual(expect.arrayContaining([{ path: '/api/user', credential: SESSION }, { path: '/api/users/bob/repos', credential: SESSION }]));
    expect(calls).toHaveLength(2);
    expect(html).toContain('href="/-/settings">alice</a>');
    expect(html).toContain('bob/secret-one');
  });

  it('when the session is refused, then what was fetched with it is thrown away and the page is shown anonymously', async () => {
    pageCallArrived();
    const res = await fetch(`${base}/bob`, { headers: { cookie: 'githost_session=ghsess_revoked' } });
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(calls.map((c) => `${c.path} ${c.credential ?? '-'}`).sort()).toEqual(['/api/user ghsess_revoked', '/api/users/bob/repos -', '/api/users/bob/repos ghsess_revoked']);
    expect(html).toContain('bob/public-one');
    expect(html).not.toContain('secret-one');
    expect(html).toContain('href="/-/sign-in"');
    expect(res.headers.getSetCookie()).toContain('githost_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0');
  });
});

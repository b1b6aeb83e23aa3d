import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { GatewayApi, type ApiPath } from '../../clients/api.js';
import { detailAndCommits } from './commits.js';

// The stand-in answers the detail at /mr (its commits at /mr/commits).
const MR = '/mr' as ApiPath<'/api/repos/{owner}/{repo}/merge-requests/{number}'>;
let server: Server;
let api: GatewayApi;
const asked: string[] = [];
const state = { source: 'a'.repeat(40), target: 'b'.repeat(40), listed: 'a'.repeat(40), refuse: false, tooBig: false };

beforeAll(async () => {
  const app = express();
  app.use((req, res, next) => {
    asked.push(req.path);
    if (state.refuse) return void res.status(404).json({ error: 'Not found' });
    next();
  });
  app.get('/mr', (_req, res) => void res.json({ number: 1, source_sha: state.source, target_sha: state.target }));
  app.get('/mr/commits', (_req, res) => void (state.tooBig ? res.status(400).json({ error: 'Comparison too big: compare commits closer together' }) : res.json([{ sha: state.listed, message: `at ${state.listed.slice(0, 1)}` }])));
  server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  api = new GatewayApi(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { credential: 'ghsess_x' });
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

describe("a merge request's commits", () => {
  it('when read again at the same heads, then only the detail is asked for; a new head asks again; a refused detail shows nothing kept', async () => {
    const first = await detailAndCommits(api, 'alice/demo#1', MR);
    expect(first.commits.map((c) => c.sha)).toEqual(['a'.repeat(40)]);
    expect(asked.sort()).toEqual(['/mr', '/mr/commits']);
    asked.length = 0;
    expect((await detailAndCommits(api, 'alice/demo#1', MR)).commits).toEqual(first.commits);
    expect(asked).toEqual(['/mr']);
    asked.length = 0;
    Object.assign(state, { source: 'c'.repeat(40), listed: 'c'.repeat(40) });
    expect((await detailAndCommits(api, 'alice/demo#1', MR)).commits.map((c) => c.sha)).toEqual(['c'.repeat(40)]);
    expect(asked).toEqual(['/mr', '/mr/commits']);
    state.refuse = true;
    await expect(detailAndCommits(api, 'alice/demo#1', MR)).rejects.toMatchObject({ kind: 'not_found' });
    state.refuse = false;
  });

  it('when the list read beside the detail does not end at its source head (a push between them), then it is not kept', async () => {
    Object.assign(state, { source: 'd'.repeat(40), listed: 'e'.repeat(40) });
    await detailAndCommits(api, 'alice/demo#2', MR);
    asked.length = 0;
    await detailAndCommits(api, 'alice/demo#2', MR);
    expect(asked.sort()).toEqual(['/mr', '/mr/commits']);
  });

  it('when the list is refused as past the compare budget (400), then the detail still comes, with the refusal in place of the commits, and nothing is kept', async () => {
    Object.assign(state, { source: 'f'.repeat(40), listed: 'f'.repeat(40), tooBig: true });
    const read = await detailAndCommits(api, 'alice/demo#3', MR);
    expect(read).toMatchObject({ mr: { number: 1 }, commits: [], commitsRefused: 'Comparison too big: compare commits closer together' });
    state.tooBig = false;
    asked.length = 0;
    expect((await detailAndCommits(api, 'alice/demo#3', MR)).commits.map((c) => c.sha)).toEqual(['f'.repeat(40)]);
    expect(asked.sort()).toEqual(['/mr', '/mr/commits']);
  });
});

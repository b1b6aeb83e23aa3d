import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { commandsRecordedHooksDir, installHooks } from '../src/hooks/install.js';
import { parseIntentRecord, REF_INTENT_ENV } from '../src/events/ref-intents.js';

/** The installed reference-transaction script itself, fed as git feeds it. */
let dir: string;
let hooks: string;
const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function run(phase: string, stdin: string, record: string | undefined): { code: number | null; stderr: string } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
  if (record !== undefined) env[REF_INTENT_ENV] = record;
  const r = spawnSync(path.join(hooks, 'reference-transaction'), [phase], { input: stdin, env, encoding: 'utf8' });
  return { code: r.status, stderr: r.stderr };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'githost-reftx-'));
  hooks = await installHooks(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('reference-transaction hook', () => {
  it('when the transport recorded the commands itself, then its hooks are the same pre-receive without a reference-transaction hook', async () => {
    const recorded = commandsRecordedHooksDir(hooks);
    expect(readdirSync(recorded).sort()).toEqual(['pre-receive']);
    expect(await readFile(path.join(recorded, 'pre-receive'), 'utf8')).toBe(await readFile(path.join(hooks, 'pre-receive'), 'utf8'));
  });

  it("when git hands over a transaction's lines, then each phase appends them under its letter, a last line without a newline included", async () => {
    const record = path.join(dir, 'one.intent');
    const header = JSON.stringify({ gitDir: '/x', context: { repository: { id: 'r1' } } });
    await writeFile(record, `${header}\n`);
    expect(run('prepared', `${Z} ${A} refs/heads/main\n${A} ${B} refs/tags/v1 two words`, record).code).toBe(0);
    expect(run('committed', `${Z} ${A} refs/heads/main\n`, record).code).toBe(0);
    expect(run('aborted', `${A} ${B} refs/tags/v1 two words\n`, record).code).toBe(0);
    const parsed = parseIntentRecord('one', await readFile(record, 'utf8'));
    expect(parsed.prepared).toEqual([
      { before: Z, after: A, ref: 'refs/heads/main' },
      { before: A, after: B, ref: 'refs/tags/v1 two words' },
    ]);
    expect(parsed.committed).toEqual([{ before: Z, after: A, ref: 'refs/heads/main' }]);
    expect(parsed.aborted).toEqual([{ before: A, after: B, ref: 'refs/tags/v1 two words' }]);
  });

  it('when one atomic transaction hands over thousands of refs, then prepared records every one of them, in order', async () => {
    const record = path.join(dir, 'many.intent');
    const header = JSON.stringify({ gitDir: '/x', context: { repository: { id: 'r1' } } });
    await writeFile(record, `${header}\n`);
    const refs = Array.from({ length: 5000 }, (_, i) => `refs/heads/b${String(i).padStart(6, '0')}`);
    expect(run('prepared', refs.map((ref) => `${Z} ${A} ${ref}\n`).join(''), record).code).toBe(0);
    const parsed = parseIntentRecord('many', await readFile(record, 'utf8'));
    expect(parsed.prepared).toHaveLength(5000);
    expect(parsed.prepared[0]).toEqual({ before: Z, after: A, ref: 'refs/heads/b000000' });
    expect(parsed.prepared[4999]).toEqual({ before: Z, after: A, ref: 'refs/heads/b004999' });
    expect(parsed.prepared.map((u) => u.ref)).toEqual(refs);
  });

  it('when the record was settled and removed, then committed does not recreate it', () => {
    const record = path.join(dir, 'settled.intent');
    expect(run('committed', `${Z} ${A} refs/heads/main\n`, record).code).toBe(0);
    expect(existsSync(record)).toBe(false);
  });

  it('when the record cannot be written, then prepared refuses the transaction with a message', () => {
    const r = run('prepared', `${Z} ${A} refs/heads/main\n`, path.join(dir, 'no-such-dir', 'x.intent'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('push refused: its ref changes could not be recorded');
  });

  it('when it runs outside the service (no record named), then it does nothing and lets the transaction go on', () => {
    expect(run('prepared', `${Z} ${A} refs/heads/main\n`, undefined).code).toBe(0);
  });
});

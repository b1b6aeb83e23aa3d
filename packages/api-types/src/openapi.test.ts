import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const cli = join(dirname(createRequire(import.meta.url).resolve('openapi-typescript/package.json')), 'bin/cli.js');

/** The arguments of the package's `generate` script, writing to `out` instead of src/openapi.ts. */
async function generateArgs(out: string): Promise<string[]> {
  const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { scripts: { generate: string } };
  const [command, ...args] = pkg.scripts.generate.split(' ');
  expect(command).toBe('openapi-typescript');
  return args.map((arg) => (arg === 'src/openapi.ts' ? out : arg));
}

describe('the generated API types', () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('when openapi/openapi.yaml is generated again, then src/openapi.ts is what comes out (else: npm run generate -w @githost/api-types)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'githost-api-types-'));
    const fresh = join(dir, 'openapi.ts');
    await run(process.execPath, [cli, ...(await generateArgs(fresh))], { cwd: packageDir });
    expect(await readFile(fresh, 'utf8')).toBe(await readFile(join(packageDir, 'src/openapi.ts'), 'utf8'));
  });
});

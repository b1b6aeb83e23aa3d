import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accountsProto, PROTO_ROOT, storageProto } from './index.js';

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)).map((f) => path.join(e.name, f)) : [e.name]));

describe('protos', () => {
  it('when the protos are loaded, then both services exist with their RPCs', () => {
    const storage = storageProto().githost.storage.v1.StorageService.service;
    expect(Object.keys(storage)).toEqual(expect.arrayContaining(['CreateRepository', 'ReadTree', 'ReadBlob', 'Diff', 'WriteMerge', 'UpdateRef']));
    expect(storage.ReadBlob.responseStream).toBe(true);
    expect(Object.keys(accountsProto().githost.accounts.v1.AccountsService.service)).toEqual(['Authenticate', 'Authorize', 'GetUsers', 'GetRepository', 'GetRefPolicy', 'AdoptPushedBranches', 'LookupSshKey']);
  });

  it('when types are regenerated from the protos, then they equal the committed ones', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'protos-'));
    const bin = path.join(PROTO_ROOT, '..', 'node_modules', '.bin', 'proto-loader-gen-types');
    execFileSync(bin, ['--keepCase', '--longs=Number', '--enums=String', '--defaults', '--oneofs', '--grpcLib=@grpc/grpc-js', '--importFileExtension=.js', `--outDir=${out}`,
      'githost/storage/v1/storage.proto', 'githost/accounts/v1/accounts.proto'], { cwd: PROTO_ROOT });
    const committed = path.join(PROTO_ROOT, 'src', 'generated');
    const generated = files(out).sort();
    expect(generated.length).toBeGreaterThan(30);
    for (const f of generated) expect([f, readFileSync(path.join(out, f), 'utf8')]).toEqual([f, readFileSync(path.join(committed, f), 'utf8')]);
  });
});

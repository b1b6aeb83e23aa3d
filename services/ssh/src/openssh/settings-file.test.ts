import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { settingsOf, writeSettingsFile } from './settings-file.js';
import { isShellSafePath, parseSettings, readSettings } from './settings.js';

describe('the OpenSSH mode settings file', () => {
  it('when the launcher writes it, then it holds only the settings githost-keys and githost-serve read, 0600, and reads back the same', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'githost-openssh-settings-'));
    try {
      const env = { ACCOUNTS_GRPC_ADDR: '127.0.0.1:4001', GITHOST_INTERNAL_SECRET: 'a'.repeat(64), GIT_STORAGE_HTTP_URL: 'http://127.0.0.1:4002', PUBLIC_URL: 'http://localhost:3000', GITHOST_ADMIN_TOKEN: 'not-this', DATABASE_URL: '' };
      const file = writeSettingsFile(dir, env);
      expect(file).toBe(path.join(dir, 'openssh.env'));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['openssh.env']);
      expect(readSettings(file)).toEqual({ ACCOUNTS_GRPC_ADDR: '127.0.0.1:4001', GITHOST_INTERNAL_SECRET: 'a'.repeat(64), GIT_STORAGE_HTTP_URL: 'http://127.0.0.1:4002', PUBLIC_URL: 'http://localhost:3000' });
      expect(readFileSync(file, 'utf8')).not.toContain('not-this');
      expect(settingsOf({ GITHOST_SSH_USER: 'forge', PATH: '/bin' })).toEqual({ GITHOST_SSH_USER: 'forge' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when a file is written by hand, then comments, blank lines and quotes are read as an EnvironmentFile would', () => {
    expect(parseSettings('# c\n\n  A=1 \nB="two words"\nC=\'x\'\nnot a line\n=v\nD=a=b\n')).toEqual({ A: '1', B: 'two words', C: 'x', D: 'a=b' });
  });

  it('when a path is to go into command=, then only absolute paths of plain characters are safe', () => {
    expect(isShellSafePath('/srv/githost/data/openssh.env')).toBe(true);
    for (const p of ['relative/x', '/a b', '/a;b', '/a$b', '/a"b', "/a'b", '/a/../b', '/a\nb']) expect(isShellSafePath(p)).toBe(false);
  });
});

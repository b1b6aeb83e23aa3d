import { describe, expect, it } from '@jest/globals';
import { INVALID_PATH, parseCommand, repositoryPath, splitWords, UNKNOWN_COMMAND } from './parse-command.js';

describe('repositoryPath (docs/decisions/ssh-server.md#paths)', () => {
  it.each(['alice/demo', 'alice/demo.git', '/alice/demo', '/alice/demo.git', 'alice/my.repo.git'])('when the path is %s, then it names the repository', (path) => {
    expect(repositoryPath(path)).toEqual({ owner: 'alice', name: path.includes('my.repo') ? 'my.repo' : 'demo' });
  });

  it.each(['~alice/demo', '~/demo', 'alice', 'alice/demo/extra', '//alice/demo', 'alice/../demo', '../alice/demo', 'alice/..', 'alice/.git', '--upload-pack=touch/x', 'alice/--upload-pack=x', '-alice/demo', 'alice/de mo', ''])(
    'when the path is %j, then it is refused',
    (path) => {
      expect(repositoryPath(path)).toBeNull();
    },
  );
});

describe('splitWords', () => {
  it('when words are plain or single-quoted as git writes them, then they split', () => {
    expect(splitWords("git-upload-pack '/alice/demo.git'")).toEqual(['git-upload-pack', '/alice/demo.git']);
    expect(splitWords('git-lfs-authenticate alice/demo.git  download')).toEqual(['git-lfs-authenticate', 'alice/demo.git', 'download']);
  });

  it.each(["git-upload-pack 'a", "git-upload-pack 'a'b", "git-upload-pack 'a''b'", 'git-upload-pack "a/b"', 'git-upload-pack a/b;id', 'git-upload-pack $(id)', "git-upload-pack 'a'\\''b'"])('when the line is %j, then it does not split', (line) => {
    expect(splitWords(line)).toBeNull();
  });
});

describe('parseCommand', () => {
  it('when there is no command, then it is a shell request', () => {
    expect(parseCommand(null)).toEqual({ kind: 'shell' });
    expect(parseCommand('   ')).toEqual({ kind: 'shell' });
  });

  it('when git asks for upload-pack or receive-pack with one quoted path, then it is that command', () => {
    expect(parseCommand("git-upload-pack '/alice/demo.git'")).toEqual({ kind: 'git', command: 'git-upload-pack', owner: 'alice', name: 'demo' });
    expect(parseCommand("git-receive-pack 'alice/demo'")).toEqual({ kind: 'git', command: 'git-receive-pack', owner: 'alice', name: 'demo' });
    expect(parseCommand('git-upload-pack alice/demo.git')).toEqual({ kind: 'git', command: 'git-upload-pack', owner: 'alice', name: 'demo' });
  });

  it('when git-lfs asks for a credential, then it is that operation', () => {
    expect(parseCommand('git-lfs-authenticate alice/demo.git upload')).toEqual({ kind: 'lfs-authenticate', operation: 'upload', owner: 'alice', name: 'demo' });
    expect(parseCommand("git-lfs-authenticate '/alice/demo.git' download")).toEqual({ kind: 'lfs-authenticate', operation: 'download', owner: 'alice', name: 'demo' });
  });

  it.each([
    ['env', UNKNOWN_COMMAND],
    ['sh -c id', UNKNOWN_COMMAND],
    ['git-upload-archive alice/demo', UNKNOWN_COMMAND],
    ['git upload-pack alice/demo', UNKNOWN_COMMAND],
    ["git-upload-pack '--upload-pack=touch /tmp/x'", INVALID_PATH],
    ["git-upload-pack '/alice/../bob/demo.git'", INVALID_PATH],
    ["git-upload-pack '~alice/demo.git'", INVALID_PATH],
    ["git-upload-pack 'alice/demo' extra", 'git-upload-pack takes exactly one argument: the repository path'],
    ['git-receive-pack', 'git-receive-pack takes exactly one argument: the repository path'],
    ['git-lfs-authenticate alice/demo delete', 'git-lfs-authenticate takes a repository path and upload or download'],
    ['git-lfs-authenticate alice/demo', 'git-lfs-authenticate takes a repository path and upload or download'],
    ["git-upload-pack 'alice/demo", 'Invalid command: arguments must be plain words or single-quoted'],
    ['git-upload-pack alice/demo\nid', UNKNOWN_COMMAND],
    [`git-upload-pack ${'a'.repeat(2000)}`, UNKNOWN_COMMAND],
  ])('when the command is %j, then it is refused with one line', (line, message) => {
    expect(parseCommand(line)).toEqual({ kind: 'refused', message });
  });
});

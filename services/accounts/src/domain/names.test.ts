import { describe, expect, it } from '@jest/globals';
import { checkBranchName, checkEmail, checkRepositoryName, checkUsername } from './names.js';

describe('CONTRACT §8 name rules', () => {
  it.each(['a', 'alice', 'A-b_c.d', '9lives', 'x'.repeat(100), 'dot.gitx', 'a.GITHUB'])('when the name is %s, then it is accepted', (name) => {
    expect(checkRepositoryName(name)).toBe(name);
    expect(checkUsername(name)).toBe(name);
  });

  it.each([
    ['', 'Repository name must not be empty'],
    ['x'.repeat(101), 'Repository name must be at most 100 characters'],
    ['.git', "Repository name must not start with '.' or '-'"],
    ['-rf', "Repository name must not start with '.' or '-'"],
    ['demo.git', "Repository name must not end in '.git'"],
    ['demo.GIT', "Repository name must not end in '.git'"],
    ['a/b', "Repository name may contain only letters, digits, '-', '_' and '.'"],
    ['a\0b', "Repository name may contain only letters, digits, '-', '_' and '.'"],
    ['héllo', "Repository name may contain only letters, digits, '-', '_' and '.'"],
  ])('when the name is %j, then it is refused with %s', (name, message) => {
    expect(() => checkRepositoryName(name)).toThrow(message);
  });

  it('when a username is api in any case, then it is refused as reserved', () => {
    expect(() => checkUsername('API')).toThrow("Username 'API' is reserved");
  });
});

describe('default branch names', () => {
  it.each(['main', 'trunk', 'release/1.0', 'feature/x-y_z'])('when the branch is %s, then it is accepted', (name) => {
    expect(checkBranchName(name)).toBe(name);
  });

  it.each(['', '-x', '--upload-pack=evil', 'a..b', 'a b', 'a:b', 'a~1', 'a^', 'x/', '/x', 'a//b', 'x.lock', 'a/.b', 'x.', '@', 'a@{1}', 'a\\b', 'b'.repeat(256), 'HEAD', 'a/-b', 'cafe\u0301'])(
    'when the branch is %j, then it is refused',
    (name) => {
      expect(() => checkBranchName(name)).toThrow(/^default_branch is not a valid branch name: /);
    },
  );
});

describe('emails', () => {
  it.each(['a@b', 'first.last+tag@example.co.uk'])('when the email is %s, then it is accepted', (email) => {
    expect(checkEmail(email)).toBe(email);
  });

  it.each(['plain', 'a@', '@b', 'a b@c', 'a@b@c'])('when the email is %j, then it is refused', (email) => {
    expect(() => checkEmail(email)).toThrow('email must look like an address (name@example.com)');
  });
});

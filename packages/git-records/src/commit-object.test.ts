import { describe, expect, it } from '@jest/globals';
import { parseCommitObject } from './commit.js';

describe('parseCommitObject', () => {
  it('when a commit has two parents and offsets, then fields and ISO dates keep the offsets and the message is exact', () => {
    const raw = Buffer.from(
      'tree 1111111111111111111111111111111111111111\nparent 2222222222222222222222222222222222222222\nparent 3333333333333333333333333333333333333333\n' +
        'author Ann <ann@example.com> 1700000000 +0530\ncommitter Bob <bob@example.com> 1700000000 -0800\n\nTitle\n\nBody\n',
    );
    expect(parseCommitObject(raw)).toEqual({
      tree: '1'.repeat(40),
      parents: ['2'.repeat(40), '3'.repeat(40)],
      author: { name: 'Ann', email: 'ann@example.com', date: '2023-11-15T03:43:20+05:30' },
      committer: { name: 'Bob', email: 'bob@example.com', date: '2023-11-14T14:13:20-08:00' },
      message: 'Title\n\nBody\n',
    });
  });

  it('when the offset is UTC, then the date ends in +00:00', () => {
    const c = parseCommitObject(Buffer.from('tree 1111111111111111111111111111111111111111\nauthor A <a@b> 0 +0000\ncommitter A <a@b> 0 +0000\n\nm'));
    expect(c.author.date).toBe('1970-01-01T00:00:00+00:00');
  });
});

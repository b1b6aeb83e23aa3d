import { describe, expect, it } from '@jest/globals';
import { formatGitDate, parseCommit, parseSignature } from './commit.js';

const TREE = 't'.repeat(40);
const P1 = '1'.repeat(40);
const P2 = '2'.repeat(40);

describe('parseCommit (CONTRACT §5 commit record)', () => {
  it('when the commit has two parents, then both are listed in order', () => {
    const raw = Buffer.from(`tree ${TREE}\nparent ${P1}\nparent ${P2}\nauthor A U <a@x.io> 1700000000 +0530\ncommitter C <c@x.io> 1700000100 -0800\n\nMerge\n`);
    expect(parseCommit('s'.repeat(40), raw)).toEqual({
      sha: 's'.repeat(40),
      tree: TREE,
      parents: [P1, P2],
      author: { name: 'A U', email: 'a@x.io', date: '2023-11-15T03:43:20+05:30' },
      committer: { name: 'C', email: 'c@x.io', date: '2023-11-14T14:15:00-08:00' },
      message: 'Merge\n',
    });
  });

  it('when the commit is a root, then parents is empty', () => {
    const raw = Buffer.from(`tree ${TREE}\nauthor A <a@x> 0 +0000\ncommitter A <a@x> 0 +0000\n\nfirst`);
    expect(parseCommit('x', raw).parents).toEqual([]);
  });

  it('when the message has several lines and blank lines, then it is kept byte for byte with its trailing newline', () => {
    const raw = Buffer.from(`tree ${TREE}\nauthor A <a@x> 0 +0000\ncommitter A <a@x> 0 +0000\n\nsubject\n\nbody line\n\n`);
    expect(parseCommit('x', raw).message).toBe('subject\n\nbody line\n\n');
  });

  it('when the commit is signed, then the gpgsig continuation lines are skipped', () => {
    const raw = Buffer.from(`tree ${TREE}\nauthor A <a@x> 0 +0000\ncommitter A <a@x> 0 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\n\nsigned\n`);
    const c = parseCommit('x', raw);
    expect([c.message, c.committer.name]).toEqual(['signed\n', 'A']);
  });

  it('when the object has no tree line, then parsing fails loudly', () => {
    expect(() => parseCommit('x', Buffer.from('author A <a@x> 0 +0000\n\nm'))).toThrow('malformed commit');
  });
});

describe('parseSignature and formatGitDate', () => {
  it('when the offset is +0000, then the date ends in +00:00', () => {
    expect(formatGitDate(0, '+0000')).toBe('1970-01-01T00:00:00+00:00');
  });

  it('when the offset is negative with minutes, then it is kept', () => {
    expect(formatGitDate(1700000000, '-0330')).toBe('2023-11-14T18:43:20-03:30');
  });

  it('when the name is empty, then name is the empty string', () => {
    expect(parseSignature('<a@x> 0 +0000')).toEqual({ name: '', email: 'a@x', date: '1970-01-01T00:00:00+00:00' });
  });
});

import { describe, expect, it } from '@jest/globals';
import { RULE_DEFAULTS, type RefPolicy } from '@githost/ref-policy';
import { parsePushedRefs, pushPolicyInputOf, refusalsOfPush, verdictTable } from './push-check.js';

const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const policy: RefPolicy = { default_branch: 'main', allow_tag_changes: false, protections: [{ pattern: 'release/*', ...RULE_DEFAULTS, allow_force_pushes: true }] };

function counting(answer: boolean) {
  const asked: string[] = [];
  return { asked, isAncestor: async (a: string, b: string) => (asked.push(`${a.slice(0, 1)}..${b.slice(0, 1)}`), answer) };
}

describe('parsePushedRefs', () => {
  it('when pre-receive reads its stdin, then each well-formed line is one ref and anything else is ignored', () => {
    expect(parsePushedRefs(`${A} ${B} refs/heads/main\n\ngarbage\n${Z} ${A} refs/tags/v1\n`)).toEqual([
      { before: A, after: B, ref: 'refs/heads/main' },
      { before: Z, after: A, ref: 'refs/tags/v1' },
    ]);
  });
});

describe('refusalsOfPush', () => {
  it('when the default branch is not fast-forwarded, then it is refused; ancestry is asked only for that ref', async () => {
    const c = counting(false);
    const refs = [
      { before: A, after: B, ref: 'refs/heads/main' },
      { before: A, after: B, ref: 'refs/heads/feature' },
      { before: A, after: B, ref: 'refs/heads/release/1' },
    ];
    expect(await refusalsOfPush({ policy, permission: 'write' }, refs, c.isAncestor)).toEqual(['protected branch main: force push not allowed']);
    expect(c.asked).toEqual(['a..b']);
  });

  it('when the default branch is fast-forwarded, then nothing is refused', async () => {
    expect(await refusalsOfPush({ policy, permission: 'write' }, [{ before: A, after: B, ref: 'refs/heads/main' }], counting(true).isAncestor)).toEqual([]);
  });

  it('when several refs are refused, then every reason is given', async () => {
    const refs = [
      { before: A, after: Z, ref: 'refs/heads/main' },
      { before: A, after: B, ref: 'refs/tags/v1' },
      { before: Z, after: B, ref: 'refs/meta/x' },
    ];
    expect(await refusalsOfPush({ policy, permission: 'admin' }, refs, counting(true).isAncestor)).toEqual([
      'protected branch main: deletion not allowed',
      'tag v1: moving an existing tag not allowed',
      'refs/meta/x: only refs/heads/ and refs/tags/ can be pushed',
    ]);
  });

  it('when the transport could not read the policy or gave none, then the push is refused', async () => {
    const refs = [{ before: Z, after: A, ref: 'refs/heads/x' }];
    expect(await refusalsOfPush({ error: 'push refused: no rules' }, refs, counting(true).isAncestor)).toEqual(['push refused: no rules']);
    expect(await refusalsOfPush(undefined, refs, counting(true).isAncestor)).toEqual(['push refused: no protection rules were given to the hook']);
  });
});

describe('pushPolicyInputOf', () => {
  it('when the variable is missing, not JSON or the wrong shape, then there is no input (and the push is refused)', () => {
    expect(pushPolicyInputOf(undefined)).toBeUndefined();
    expect(pushPolicyInputOf('{')).toBeUndefined();
    expect(pushPolicyInputOf('{"policy":{}}')).toBeUndefined();
    expect(pushPolicyInputOf('null')).toBeUndefined();
    expect(pushPolicyInputOf(JSON.stringify({ policy, permission: 'write' }))).toEqual({ policy, permission: 'write' });
  });
});

describe('verdictTable', () => {
  it('when refs are judged ahead of the objects, then each line says ok, no (refused however it moves) or ff (refused unless a fast-forward)', () => {
    const refs = [
      { before: A, after: B, ref: 'refs/heads/main' },
      { before: A, after: B, ref: 'refs/heads/feature' },
      { before: A, after: Z, ref: 'refs/heads/main' },
      { before: Z, after: B, ref: 'refs/heads/main' },
    ];
    expect(verdictTable(policy, 'write', refs)!.split('\n')).toEqual([
      `${A} ${B} refs/heads/main ff protected branch main: force push not allowed`,
      `${A} ${B} refs/heads/feature ok`,
      `${A} ${Z} refs/heads/main no protected branch main: deletion not allowed`,
      `${Z} ${B} refs/heads/main ok`,
    ]);
  });

  it('when there are no refs or the table would not fit in the environment, then there is none (the Node hook decides)', () => {
    expect(verdictTable(policy, 'write', [])).toBeUndefined();
    const many = Array.from({ length: 2000 }, (_, i) => ({ before: Z, after: B, ref: `refs/heads/branch-${i}` }));
    expect(verdictTable(policy, 'write', many)).toBeUndefined();
  });

  it('when the table is exactly as large as the environment takes, then it is kept; one byte more, then there is none', () => {
    const line = (ref: string) => `${Z} ${B} ${ref} ok`;
    const refs = Array.from({ length: 1000 }, (_, i) => ({ before: Z, after: B, ref: `refs/heads/b${String(i).padStart(4, '0')}` }));
    const before = refs.reduce((n, r) => n + line(r.ref).length + 1, 0);
    const last = (extra: number) => ({ before: Z, after: B, ref: `refs/heads/${'x'.repeat(100 * 1024 - before - line('refs/heads/').length + extra)}` });
    const table = verdictTable(policy, 'write', [...refs, last(0)]);
    expect(table).toHaveLength(100 * 1024);
    expect(table!.split('\n').at(-1)).toBe(line(last(0).ref));
    expect(verdictTable(policy, 'write', [...refs, last(1)])).toBeUndefined();
  });
});

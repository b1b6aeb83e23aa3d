import { describe, expect, it } from '@jest/globals';
import { revisionExpressionOf } from './revision-expressions.js';

describe('revision expressions of the paged log', () => {
  it('when a name has ancestry steps, is HEAD or an abbreviated id, then its base and steps are split', () => {
    expect(revisionExpressionOf('main~3')).toEqual({ base: 'main', steps: '~3' });
    expect(revisionExpressionOf('feature/x^2~1^{}')).toEqual({ base: 'feature/x', steps: '^2~1^{}' });
    expect(revisionExpressionOf('v1.0^{commit}')).toEqual({ base: 'v1.0', steps: '^{commit}' });
    expect(revisionExpressionOf('HEAD')).toEqual({ base: 'HEAD', steps: '' });
    expect(revisionExpressionOf('HEAD^')).toEqual({ base: 'HEAD', steps: '^' });
    expect(revisionExpressionOf('abc1')).toEqual({ base: 'abc1', steps: '' });
  });

  it('when a name is plain, then it is no expression (and stays Ref not found)', () => {
    expect(revisionExpressionOf('nope')).toBeUndefined();
    expect(revisionExpressionOf('abc')).toBeUndefined();
    expect(revisionExpressionOf('--all')).toBeUndefined();
    expect(revisionExpressionOf('-h~1')).toBeUndefined();
  });

  it.each(['main@{1}', '@{-1}', 'main@{upstream}', ':/fix', 'main:README.md', 'main^{/fix}', 'a..b', 'a...b', 'main^!', 'main^@', 'main^-', '~1', 'main~1234567', 'main^{tree}', `main${'~'.repeat(33)}`])(
    'when %s is asked for, then it is refused with a 400',
    (name) => {
      expect(() => revisionExpressionOf(name)).toThrow(expect.objectContaining({ kind: 'validation' }));
    },
  );
});

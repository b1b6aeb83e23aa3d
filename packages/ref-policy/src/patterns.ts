import picomatch from 'picomatch';
import { validation } from '@githost/errors';
import { refFormatProblem } from './names.js';
import { RULE_DEFAULTS, type BranchProtection, type RefPolicy } from './types.js';

const MAX_PATTERN_LENGTH = 255;

/**
 * A branch name or a glob over branch names: `*` matches within one `/`-separated segment, `**`
 * across segments. With each `*` read as a letter it must be a name refFormatProblem takes, so
 * `?`, `[` and `\` are refused and a pattern means only what `*` and `**` say.
 */
export function validateBranchPattern(pattern: unknown): string {
  if (typeof pattern !== 'string' || pattern.length === 0) throw validation('Branch pattern is required');
  const invalid = () => validation(`Invalid branch pattern: ${JSON.stringify(pattern)} (a branch name, * and ** allowed)`);
  if (pattern.length > MAX_PATTERN_LENGTH || refFormatProblem(pattern.replaceAll('*', 'x')) !== null) throw invalid();
  if (pattern.startsWith('refs/')) throw invalid();
  if (pattern.split('/').some((part) => part.includes('**') && part !== '**')) throw invalid();
  return pattern;
}

const matchers = new Map<string, (s: string) => boolean>();

/** Whether `branch` (without refs/heads/) is named by `pattern`. */
export function matchesPattern(pattern: string, branch: string): boolean {
  if (!pattern.includes('*')) return pattern === branch;
  let m = matchers.get(pattern);
  if (!m) {
    // dot: a rule must not skip a segment that starts with a dot.
    m = picomatch(pattern, { dot: true, nobrace: true, noextglob: true, nonegate: true });
    if (matchers.size > 10_000) matchers.clear();
    matchers.set(pattern, m);
  }
  return m(branch);
}

/**
 * The rule that governs `branch`: a rule naming it exactly wins; otherwise the matching glob with
 * the longest pattern (the most specific; ties go to the first in code-unit order). The default
 * branch with no rule of its own is protected against force pushes and deletion; any other
 * branch without a rule has none (null).
 */
export function protectionFor(policy: RefPolicy, branch: string): BranchProtection | null {
  let best: BranchProtection | null = null;
  for (const rule of policy.protections) {
    if (rule.pattern === branch) return rule;
    if (!rule.pattern.includes('*') || !matchesPattern(rule.pattern, branch)) continue;
    if (!best || rule.pattern.length > best.pattern.length || (rule.pattern.length === best.pattern.length && rule.pattern < best.pattern)) best = rule;
  }
  if (best) return best;
  if (branch === policy.default_branch) return { pattern: branch, ...RULE_DEFAULTS };
  return null;
}

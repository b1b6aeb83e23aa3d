import { validation } from '@githost/errors';
import { MAX_REQUIRED_APPROVALS, PUSH_RESTRICTIONS, RULE_DEFAULTS, validateBranchPattern, type BranchProtection, type PushRestriction } from '@githost/ref-policy';

/** Required status contexts per rule, and the length of one (a CI job name). */
export const MAX_STATUS_CHECKS = 100;
export const MAX_CONTEXT_LENGTH = 255;

type Body = Record<string, unknown>;

function present(body: Body, field: string): boolean {
  return body[field] !== undefined && body[field] !== null;
}

function boolean(body: Body, field: string, fallback: boolean): boolean {
  if (!present(body, field)) return fallback;
  if (typeof body[field] !== 'boolean') throw validation(`${field} must be true or false`);
  return body[field] as boolean;
}

function approvals(body: Body): number {
  if (!present(body, 'required_approvals')) return RULE_DEFAULTS.required_approvals;
  const v = body.required_approvals;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_REQUIRED_APPROVALS) {
    throw validation(`required_approvals must be an integer from 0 to ${MAX_REQUIRED_APPROVALS}`);
  }
  return v;
}

/** Contexts in the order given, each once. */
function statusChecks(body: Body): string[] {
  if (!present(body, 'required_status_checks')) return [...RULE_DEFAULTS.required_status_checks];
  const v = body.required_status_checks;
  const shape = `required_status_checks must be an array of non-empty strings of at most ${MAX_CONTEXT_LENGTH} characters`;
  if (!Array.isArray(v)) throw validation(shape);
  for (const c of v) if (typeof c !== 'string' || c.trim() === '' || c.length > MAX_CONTEXT_LENGTH) throw validation(shape);
  const unique = [...new Set(v as string[])];
  if (unique.length > MAX_STATUS_CHECKS) throw validation(`required_status_checks must have at most ${MAX_STATUS_CHECKS} contexts`);
  return unique;
}

function push(body: Body): PushRestriction {
  if (!present(body, 'push')) return RULE_DEFAULTS.push;
  const v = body.push;
  if (typeof v !== 'string' || !(PUSH_RESTRICTIONS as readonly string[]).includes(v)) throw validation('push must be "write", "admin" or "nobody"');
  return v as PushRestriction;
}

/**
 * A PUT body as the whole rule for `pattern` (a PUT replaces: a field left out takes its default,
 * not its previous value, as GitHub's branch protection PUT does). Unknown fields are ignored.
 */
export function parseProtectionRule(pattern: string, raw: unknown): BranchProtection {
  const checked = validateBranchPattern(pattern);
  if (raw !== undefined && raw !== null && (typeof raw !== 'object' || Array.isArray(raw))) throw validation('Request body must be a JSON object');
  const body = (raw ?? {}) as Body;
  return {
    pattern: checked,
    allow_force_pushes: boolean(body, 'allow_force_pushes', RULE_DEFAULTS.allow_force_pushes),
    allow_deletions: boolean(body, 'allow_deletions', RULE_DEFAULTS.allow_deletions),
    required_approvals: approvals(body),
    required_status_checks: statusChecks(body),
    dismiss_stale_approvals: boolean(body, 'dismiss_stale_approvals', RULE_DEFAULTS.dismiss_stale_approvals),
    push: push(body),
  };
}

import type { Permission } from '@githost/identity';
import { POLICY_UNAVAILABLE } from '../clients/ref-policies.js';
import type { PushLimits, StorageContext } from '../storage-context.js';
import { commandsRecordedHooksDir, MAX_FILE_ENV, QUOTA_ENV } from './install.js';
import { PUSH_POLICY_ENV, PUSH_VERDICTS_ENV, verdictTable, type PushedRef, type PushPolicyInput } from './push-check.js';

/**
 * receive-pack runs the service's hooks (protection, push bounds, ref intents unless the transport
 * recorded the commands) whatever the
 * repository's own config says, and leaves fast-forward checks to them: repositories created
 * before protection rules carry `receive.denyNonFastForwards=true`, which would refuse every
 * force push. git itself refuses a pack over `receive.maxInputSize` ("pack exceeds maximum
 * allowed size") and, with `receive.fsckObjects`, objects failing its default checks (`.git` and
 * `..` entries, malicious `.gitmodules`): both before any ref moves, so nothing is journaled.
 */
export function receiveConfig(ctx: StorageContext, commandsRecorded: boolean): Array<[string, string]> {
  return [
    ['core.hooksPath', commandsRecorded ? commandsRecordedHooksDir(ctx.hooksDir) : ctx.hooksDir],
    ['receive.denyNonFastForwards', 'false'],
    ['receive.maxInputSize', String(ctx.pushLimits.maxBytes)],
    ['receive.fsckObjects', 'true'],
  ];
}

/** The pre-receive hook's input; a policy that cannot be read refuses the push (fail closed). */
export async function pushPolicyInput(ctx: StorageContext, repo: { id: string; permission: Permission }, requestId: string): Promise<PushPolicyInput> {
  try {
    return { policy: await ctx.policies.policyOf(repo.id, requestId), permission: repo.permission };
  } catch (err) {
    ctx.logger.warn({ err, repository_id: repo.id }, 'git transport: no ref policy, the push will be refused');
    return { error: `push refused: ${POLICY_UNAVAILABLE}` };
  }
}

/**
 * What the pre-receive hook is told for one push, in receive-pack's environment: the push bounds,
 * the policy and the pusher's permission (or why there is none), and the verdict of each ref the
 * request body announces (`refs`, when the transport could read them), for the shell fast path.
 */
export function preReceiveEnv(limits: PushLimits, input: PushPolicyInput, refs: PushedRef[] | undefined): Record<string, string> {
  const env: Record<string, string> = { [MAX_FILE_ENV]: String(limits.maxFileBytes) };
  if (limits.quotaBytes !== undefined) env[QUOTA_ENV] = String(limits.quotaBytes);
  env[PUSH_POLICY_ENV] = JSON.stringify(input);
  const verdicts = 'policy' in input && refs ? verdictTable(input.policy, input.permission, refs) : undefined;
  if (verdicts) env[PUSH_VERDICTS_ENV] = verdicts;
  return env;
}

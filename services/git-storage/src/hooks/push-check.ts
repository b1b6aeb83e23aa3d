import { OID_PATTERN, ZERO_OID } from '@githost/git-records/object-id';
import { refusalOf, type RefActor, type RefPolicy } from '@githost/ref-policy';

/*
 * Where a push is refused: this folder. receive-pack.ts is what the transport gives receive-pack
 * (the hooks directory, the policy, the verdict of each ref the request announces: verdictTable
 * below); install.ts writes the hooks at start, whose pre-receive shell applies the push bounds
 * and then those verdicts; pre-receive.ts is the Node hook for a push they do not cover
 * (refusalsOfPush below). Every verdict is @githost/ref-policy's refusalOf, the rule a merge's
 * ref move is refused by too (grpc/update-ref.ts).
 */

/** Env var the transport sets for the pre-receive hook: a JSON `PushPolicyInput`. */
export const PUSH_POLICY_ENV = 'GITHOST_PUSH_POLICY';

/** What the hook is told: the policy and the pusher's permission, or why there is no policy. */
export type PushPolicyInput = { policy: RefPolicy; permission: RefActor['permission'] } | { error: string };

export interface PushedRef {
  before: string;
  after: string;
  ref: string;
}

const PUSHED_REF = new RegExp(`^(${OID_PATTERN}) (${OID_PATTERN}) (\\S+)$`);

/** pre-receive's stdin: `<old> <new> <ref>` lines. */
export function parsePushedRefs(text: string): PushedRef[] {
  const out: PushedRef[] = [];
  for (const line of text.split('\n')) {
    const m = PUSHED_REF.exec(line);
    if (m) out.push({ before: m[1]!, after: m[2]!, ref: m[3]! });
  }
  return out;
}

/**
 * Why the push is refused (one line per refused ref), empty when every ref may move. The whole
 * push is refused when one ref is (pre-receive semantics: all or nothing, docs/decisions/branch-protection.md). `isAncestor` is asked only when the answer changes the verdict, so a push the
 * rules do not care about costs no ancestry walk.
 */
export async function refusalsOfPush(input: PushPolicyInput | undefined, refs: PushedRef[], isAncestor: (a: string, b: string) => Promise<boolean>): Promise<string[]> {
  if (!input) return ['push refused: no protection rules were given to the hook'];
  if ('error' in input) return [input.error];
  const actor: RefActor = { permission: input.permission, via: 'push' };
  const refusals: string[] = [];
  for (const r of refs) {
    const change = { ref: r.ref, before: r.before, after: r.after, forced: false };
    let refusal = refusalOf(input.policy, change, actor);
    if (refusal === null && r.before !== ZERO_OID && r.after !== ZERO_OID && refusalOf(input.policy, { ...change, forced: true }, actor) !== null) {
      if (!(await isAncestor(r.before, r.after))) refusal = refusalOf(input.policy, { ...change, forced: true }, actor);
    }
    if (refusal !== null) refusals.push(refusal);
  }
  return refusals;
}

/** The hook's input from its environment; undefined when absent or unreadable (refused: fail closed). */
export function pushPolicyInputOf(raw: string | undefined): PushPolicyInput | undefined {
  if (!raw) return undefined;
  try {
    const v = JSON.parse(raw) as PushPolicyInput;
    return typeof v === 'object' && v !== null && ('error' in v || ('policy' in v && 'permission' in v)) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Env var with the service's verdict per pushed ref, for the pre-receive hook's fast path. */
export const PUSH_VERDICTS_ENV = 'GITHOST_PUSH_VERDICTS';

/** Linux caps one environment string at 128 KiB; a larger table is left to the Node hook. */
const MAX_VERDICTS_BYTES = 100 * 1024;

/**
 * The verdict of every ref the request body announces, as lines `<old> <new> <ref> <verdict>
 * [message]`: `ok`; `no <message>` (refused however the ref moves); `ff <message>` (refused
 * unless a fast-forward, which only git can tell once the objects are in). The hook's shell
 * fast path applies them only when git hands it exactly these refs, and asks git for ancestry
 * only on `ff`, so a push costs no Node start (docs/decisions/branch-protection.md). Undefined
 * when the table would not fit in the environment.
 */
export function verdictTable(policy: RefPolicy, permission: RefActor['permission'], refs: PushedRef[]): string | undefined {
  const actor: RefActor = { permission, via: 'push' };
  const lines: string[] = [];
  let bytes = -1; // the newlines between lines
  for (const r of refs) {
    const change = { ref: r.ref, before: r.before, after: r.after, forced: false };
    const plain = refusalOf(policy, change, actor);
    const canBeForced = r.before !== ZERO_OID && r.after !== ZERO_OID;
    const forced = canBeForced ? refusalOf(policy, { ...change, forced: true }, actor) : plain;
    const head = `${r.before} ${r.after} ${r.ref}`;
    const line = plain !== null ? `${head} no ${plain}` : forced === null ? `${head} ok` : `${head} ff ${forced}`;
    bytes += Buffer.byteLength(line) + 1;
    // Past the cap the table is not used: a push of 10,000 refs stops here, about 1,000 refs in,
    // instead of judging every ref on the event loop for nothing (docs/decisions/many-refs-push.md#yielding).
    if (bytes > MAX_VERDICTS_BYTES) return undefined;
    lines.push(line);
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}

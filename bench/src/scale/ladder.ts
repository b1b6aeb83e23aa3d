/**
 * The scale ladder: three sizes a factor of 10 apart. Each data axis names its smallest size at
 * full scale (10,000 commits, 2,000 files, ...); step `i` holds `base * 10^i / divisor` of it.
 * BENCH_SCALE_SIZES picks steps by name (`small,medium,large`, the default all three) and
 * BENCH_SCALE_DIVISOR divides every axis (10: the whole ladder at a tenth, for a small machine).
 */
export const STEP_NAMES = ['small', 'medium', 'large'] as const;
export type StepName = (typeof STEP_NAMES)[number];

export interface Ladder {
  /** The steps that run, in ladder order (0 = small). */
  steps: number[];
  divisor: number;
}

export function scaleLadder(env: NodeJS.ProcessEnv): Ladder {
  const names = (env.BENCH_SCALE_SIZES ?? STEP_NAMES.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  const steps = names.map((name) => {
    const step = STEP_NAMES.indexOf(name as StepName);
    if (step < 0) throw new Error(`BENCH_SCALE_SIZES: unknown size ${name}; the scale part takes ${STEP_NAMES.join(', ')}`);
    return step;
  });
  const divisor = Number(env.BENCH_SCALE_DIVISOR ?? 1);
  if (!Number.isFinite(divisor) || divisor < 1) throw new Error(`BENCH_SCALE_DIVISOR must be a number >= 1, got ${env.BENCH_SCALE_DIVISOR}`);
  if (steps.length === 0) throw new Error('BENCH_SCALE_SIZES names no size');
  return { steps: [...new Set(steps)].sort((a, b) => a - b), divisor };
}

/** The size of step `step` of an axis whose smallest full-scale size is `base`. */
export function sized(base: number, step: number, ladder: Ladder): number {
  return Math.max(1, Math.round((base * 10 ** step) / ladder.divisor));
}

/** What ran, said in the output: "small, medium at 1/10". */
export function describeLadder(ladder: Ladder): string {
  return `${ladder.steps.map((s) => STEP_NAMES[s]).join(', ')}${ladder.divisor === 1 ? ' at full size' : ` at 1/${ladder.divisor} of full size`}`;
}

/** BENCH_SCALE_SIZES as the scale-lists part reads it: its own row counts, or the ladder's names
 *  (then 1k, 10k, 100k rows per step, divided), so one setting serves both parts. */
export function listSizes(env: NodeJS.ProcessEnv): number[] {
  const raw = env.BENCH_SCALE_SIZES ?? '1000,10000,100000';
  if (raw.split(',').every((s) => /^\d+$/.test(s.trim()))) return raw.split(',').map(Number);
  const ladder = scaleLadder(env);
  return ladder.steps.map((s) => sized(1000, s, ladder));
}

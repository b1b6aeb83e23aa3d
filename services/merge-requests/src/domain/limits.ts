/** Limits the seed leaves open (CONTRACT §9 "Merge requests", §5 diff limits). */
export const MAX_TITLE_CHARS = 255;
export const MAX_TEXT_CHARS = 65_536;
/** seed §8: merge requests per list response. */
export const LIST_LIMIT = 50;
export const ACTIVITY_LIMIT = 100;
export const DIFF_MAX_FILES = 3000;
export const DIFF_MAX_PATCH_BYTES = 1024 * 1024;
/** Patch text kept in one detail response; beyond it patches are dropped (`diff_truncated`), so a
 *  3000-file diff stays a bounded response instead of up to 3000 x 1 MiB in memory. */
export const DIFF_MAX_TOTAL_PATCH_BYTES = 32 * 1024 * 1024;

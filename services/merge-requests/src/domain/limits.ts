/** Limits the seed leaves open (CONTRACT §9 "Merge requests", §5 diff limits). */
export const MAX_TITLE_CHARS = 255;
export const MAX_TEXT_CHARS = 65_536;
/** seed §8: merge requests per list response. */
export const LIST_LIMIT = 50;
export const ACTIVITY_LIMIT = 100;
export const DIFF_MAX_FILES = 3000;
export const DIFF_MAX_PATCH_BYTES = 1024 * 1024;

export * from './types.js';
export { validateBranchPattern, protectionFor, matchesPattern } from './patterns.js';
export { refusalOf, type RefChange, type RefActor } from './refusal.js';
export { refPolicyOfMessage, pushRestrictionOf, type RefPolicyMessage } from './message.js';
export { refFormatProblem, newRefNameProblem } from './names.js';
export { MAX_REQUIRED_APPROVALS } from './limits.js';

export { ensureRepo, cacheKey, type GeneratedRepo } from './generate-repo.js';
export { resolveParams, DEFAULT_PARAMS, QUICK_PARAMS, type RepoParams } from './params.js';
export { knownPaths, type KnownPaths } from './layout.js';

/**
 * End-to-end support: the whole service started in the test process, driven through the gateway
 * with fetch and the real git client. Typical use:
 *
 *   const gh = await startTestGithost();            // or { backend: 'real' }
 *   const alice = await createUser(gh, 'alice');
 *   await createRepo(gh, alice.token, 'demo');
 *   const wd = makeWorkdir();
 *   await commitFiles(wd, { 'README.md': 'hi\n' }, 'first');
 *   await git(wd, 'push', pushUrl(gh, 'alice', alice.token, 'alice', 'demo'), 'main');
 *   ...
 *   await gh.stop();
 */
export { startTestGithost, type TestGithost, type TestGithostOptions } from './githost.js';
export { api, rawGet, createUser, createUsers, createRepo, addCollaborator, type ApiOptions, type ApiResponse, type TestUser, type TestRepo } from './api.js';
export { makeWorkdir, removeWorkdirs, git, gitResult, gitResultWithEnv, gitWithInput, commitFiles, pushUrl, cloneUrl, type GitResult } from './git.js';
export { openApiViolations, assertMatchesOpenApi, OPENAPI_FILE } from './openapi.js';
export { startReceiver } from './receiver.js';
export { edgeAnswerHits, giteaClient, giteaFailure, giteaRead, keptAtEdge } from './gitea.js';
export { webGet, webPost, textOf, type WebPage } from './web.js';
export { createBranchedRepo, watchPushes, type BranchedRepo, type WatchedPushes } from './scenarios.js';
export { cookiePair, csrfOf, eventually, sample, type ReceivedDelivery as Delivery, type Receiver } from '@githost/test-support';

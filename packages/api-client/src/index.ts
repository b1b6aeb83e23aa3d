export { apiError, apiPath, encodePath, repoApiPath, type ApiAnswer, type ApiPath, type ApiTemplate, type Method, type WithMethod } from './api.js';
export { goesToFallback, requestWhole, type WholeAnswer, type WholeRequest } from './http-client.js';
export { streamedRead, type StreamedRead } from './streamed-read.js';
export { sshCloneUrl, sshFactsOf, type SshFacts } from './ssh-facts.js';
export { ownGateway, PARTNER_DOWN, PartnerCheck, partnerDownError, type PartnerCheckOptions, type PartnerLogger } from './partner-check.js';

// The public REST API's JSON shapes, named. Everything here comes from openapi/openapi.yaml
// through the generated `openapi.ts`; nothing restates a shape by hand except the delivery detail
// fields below, which the document does not describe yet (packages/api-types/README.md#what-the-document-lacks).
import type { components, operations } from './openapi.js';

export type { components, operations, paths } from './openapi.js';

type Schemas = components['schemas'];

/** The JSON body of an operation's answer with the given status. */
export type ResponseBody<Op extends keyof operations, Status extends number = 200> = operations[Op]['responses'] extends Record<
  Status,
  { content: { 'application/json': infer Body } }
>
  ? Body
  : never;

/** The JSON body an operation takes. */
export type RequestBody<Op extends keyof operations> = operations[Op]['requestBody'] extends
  | { content: { 'application/json': infer Body } }
  | undefined
  ? Body
  : never;

type ElementOf<T> = T extends readonly (infer E)[] ? E : never;

export type ApiError = Schemas['Error'];
export type Sha = Schemas['Sha'];
export type Timestamp = Schemas['Timestamp'];
export type User = Schemas['User'];
export type AdminUser = Schemas['AdminUser'];
/** What anyone may see of a user (the explore list). */
export type PublicUser = Schemas['PublicUser'];
export type TokenScope = Schemas['TokenScope'];
export type TokenRequest = Schemas['TokenRequest'];
/** A token as issued: its secret is shown once. */
export type Token = Schemas['Token'];
export type TokenInfo = Schemas['TokenInfo'];
export type SshKey = Schemas['SshKey'];
export type DeployKey = Schemas['DeployKey'];
export type NewSshKey = Schemas['NewSshKey'];
export type NewDeployKey = Schemas['NewDeployKey'];
export type SessionInfo = Schemas['SessionInfo'];
export type Repository = Schemas['Repository'];
export type Collaborator = Schemas['Collaborator'];
export type BranchProtection = Schemas['BranchProtection'];
export type BranchProtectionInput = Schemas['BranchProtectionInput'];
export type Webhook = Schemas['Webhook'];
export type WebhookSettings = Schemas['WebhookSettings'];
export type Delivery = Schemas['Delivery'];
/** One delivery with what was sent and every attempt (`GET .../deliveries/{delivery_id}`, CONTRACT §9). */
export type DeliveryDetail = Schemas['DeliveryDetail'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type MergeRequest = Schemas['MergeRequest'];
export type MergeRequestWithAuthor = Schemas['MergeRequestWithAuthor'];
export type MergeRequestDetail = Schemas['MergeRequestDetail'];
export type MergeFacts = Schemas['MergeFacts'];
export type MergeRequestWithMergeFacts = Schemas['MergeRequestWithMergeFacts'];
export type ReviewRequest = Schemas['ReviewRequest'];
export type DiffFile = Schemas['DiffFile'];
export type Comment = Schemas['Comment'];
export type CommentWithAuthor = Schemas['CommentWithAuthor'];
export type Review = Schemas['Review'];
export type ReviewSummary = Schemas['ReviewSummary'];
export type CommitStatus = Schemas['CommitStatus'];
export type CombinedStatus = Schemas['CombinedStatus'];
export type TreeEntry = Schemas['TreeEntry'];
export type Signature = Schemas['Signature'];
export type Commit = Schemas['Commit'];

// Answers the document declares inline, named after what they are.
export type Blob = ResponseBody<'getBlob'>;
export type Tree = ResponseBody<'getTree'>;
/** One entry of the repository's activity log (`GET .../activity`). */
export type Activity = ElementOf<ResponseBody<'listActivity'>>;
export type Commits = ResponseBody<'listCommits'>;
export type Comparison = ResponseBody<'compareRefs'>;
export type Branches = ResponseBody<'listBranches'>;
export type Branch = ElementOf<Branches['branches']>;
export type Tags = ResponseBody<'listTags'>;
export type Tag = ElementOf<Tags['tags']>;

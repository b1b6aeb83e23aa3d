import type { Migration } from '@githost/db';
import { OUTBOX_MIGRATION_SQL } from '@githost/bus';

/** Schema `merge_requests`. Plain SQL that runs on Postgres and PGlite alike. */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'merge requests, comments, activity, merge intents',
    sql: `
CREATE TABLE merge_requests (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  repo_id text NOT NULL,
  number integer NOT NULL,
  title text NOT NULL,
  description text,
  author_id text,
  source_branch text NOT NULL,
  target_branch text NOT NULL,
  source_sha text NOT NULL,
  state text NOT NULL DEFAULT 'open',
  merged_sha text,
  merged_by text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CONSTRAINT merge_requests_number_unique UNIQUE (repo_id, number)
);
CREATE INDEX merge_requests_list_idx ON merge_requests (repo_id, state, created_at DESC);
-- One row per repository, locked by each create: numbers are highest + 1, gapless and unique.
CREATE TABLE merge_request_counters (
  repo_id text PRIMARY KEY,
  last_number integer NOT NULL
);
CREATE TABLE merge_request_comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  mr_id uuid NOT NULL REFERENCES merge_requests (id),
  author_id text,
  body text NOT NULL,
  file_path text,
  line_number integer CHECK (line_number > 0),
  diff_side text CHECK (diff_side IN ('old', 'new')),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX merge_request_comments_mr_idx ON merge_request_comments (mr_id, created_at, seq);
CREATE TABLE activity (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  repo_id text NOT NULL,
  user_id text,
  action text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX activity_repo_idx ON activity (repo_id, created_at DESC, seq DESC);
-- At most one merge in flight per merge request; the planned ref move lets a restart finish it.
CREATE TABLE merge_intents (
  mr_id uuid PRIMARY KEY REFERENCES merge_requests (id),
  repo_id text NOT NULL,
  repo_owner text NOT NULL,
  repo_name text NOT NULL,
  merger_id text,
  request_id text,
  target_ref text,
  old_oid text,
  new_oid text,
  strategy text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
`,
  },
  { version: 2, name: 'event outbox', sql: OUTBOX_MIGRATION_SQL },
  // Recovery finishes a merge on the repository's git-storage shard (docs/operating.md#adding-a-shard); intents
  // written before shards existed were all on `default`.
  { version: 3, name: 'merge intent shard', sql: `ALTER TABLE merge_intents ADD COLUMN repo_shard text NOT NULL DEFAULT 'default';` },
  // A merge request follows its source branch (docs/decisions/following-source-branch.md): `head_sha` is the source tip
  // now, `source_sha` stays the tip at creation (seed §2). `repo_shard` lets the push consumer
  // reach git-storage without asking accounts.
  {
    version: 4,
    name: 'merge request head and shard',
    sql: `
ALTER TABLE merge_requests ADD COLUMN head_sha text;
UPDATE merge_requests SET head_sha = source_sha WHERE head_sha IS NULL;
ALTER TABLE merge_requests ALTER COLUMN head_sha SET NOT NULL;
ALTER TABLE merge_requests ADD COLUMN repo_shard text NOT NULL DEFAULT 'default';
CREATE INDEX merge_requests_source_idx ON merge_requests (repo_id, source_branch) WHERE state = 'open';
CREATE INDEX merge_requests_target_idx ON merge_requests (repo_id, target_branch) WHERE state = 'open';
`,
  },
  // Events the consumer has applied: a redelivered push (the bus is at-least-once) changes
  // nothing and emits nothing the second time.
  {
    version: 5,
    name: 'handled events',
    sql: `
CREATE TABLE handled_events (
  event_id text PRIMARY KEY,
  repo_id text NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX handled_events_repo_idx ON handled_events (repo_id);
`,
  },
  // Versions 20 and up: reviews and commit statuses (services/merge-requests/README.md#reviews, #commit-statuses).
  {
    version: 20,
    name: 'reviews and commit statuses',
    sql: `
CREATE TABLE merge_request_reviews (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  mr_id uuid NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  author_id text,
  state text NOT NULL CHECK (state IN ('approved', 'changes_requested', 'commented')),
  body text NOT NULL,
  commit_sha text NOT NULL,
  -- the reviewer's access when the review was given: only write and admin count as approvals
  reviewer_permission text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX merge_request_reviews_mr_idx ON merge_request_reviews (mr_id, seq);
CREATE TABLE commit_statuses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY,
  repo_id text NOT NULL,
  sha text NOT NULL,
  context text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'success', 'failure', 'error')),
  description text,
  target_url text,
  creator_id text,
  creator_username text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX commit_statuses_sha_idx ON commit_statuses (repo_id, sha, seq DESC);
CREATE INDEX commit_statuses_context_idx ON commit_statuses (repo_id, sha, context, seq DESC);
-- One row per (repository, sha, context), counted under its row lock: the 1,000 limit holds
-- under concurrent posts.
CREATE TABLE commit_status_counts (
  repo_id text NOT NULL,
  sha text NOT NULL,
  context text NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (repo_id, sha, context)
);
`,
  },
  // Versions 21 and up: lists at volume (docs/decisions/list-paging.md). The page index carries
  // the list's whole order, so a keyset page is one probe; handled events are pruned by age.
  {
    version: 21,
    name: 'merge request page index, handled events by age',
    sql: `
CREATE INDEX IF NOT EXISTS merge_requests_page_idx ON merge_requests (repo_id, state, created_at DESC, number DESC);
CREATE INDEX IF NOT EXISTS handled_events_age_idx ON handled_events (handled_at);
`,
  },
  // Version 22: review requests (services/merge-requests/README.md#review-requests). Additive: a
  // table of its own; a review by a requested reviewer deletes its row in the review's transaction.
  {
    version: 22,
    name: 'review requests',
    sql: `
CREATE TABLE IF NOT EXISTS merge_request_review_requests (
  mr_id uuid NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  reviewer_id text NOT NULL,
  requested_by text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (mr_id, reviewer_id)
);
`,
  },
];

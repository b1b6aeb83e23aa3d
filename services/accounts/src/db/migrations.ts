import type { Migration } from '@githost/db';

/**
 * The accounts schema, plain SQL, applied in order at start-up (same SQL on Postgres and PGlite).
 * Never edit an applied migration; add the next version.
 */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'users_tokens_repositories_collaborators',
    sql: `
CREATE TABLE users (
  id text PRIMARY KEY,
  username text NOT NULL,
  email text NOT NULL,
  is_admin boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Usernames are unique whatever their letter case (alice and Alice are one owner in URLs).
CREATE UNIQUE INDEX users_username_key ON users (lower(username));

CREATE TABLE tokens (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text,
  -- sha256 hex of the token; the token itself is never stored.
  token_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX tokens_user_id_idx ON tokens (user_id);

CREATE TABLE repositories (
  id text PRIMARY KEY,
  owner_id text NOT NULL REFERENCES users (id),
  name text NOT NULL,
  private boolean NOT NULL DEFAULT false,
  default_branch text NOT NULL DEFAULT 'main',
  description text,
  shard text NOT NULL DEFAULT 'default',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX repositories_owner_name_key ON repositories (owner_id, lower(name));

CREATE TABLE collaborators (
  repository_id text NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  permission text NOT NULL CHECK (permission IN ('read', 'write')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repository_id, user_id)
);
CREATE INDEX collaborators_user_id_idx ON collaborators (user_id);
`,
  },
  {
    version: 2,
    name: 'repositories_shard_index',
    // Placement counts repositories per shard on every creation (docs/operating.md#adding-a-shard).
    sql: `CREATE INDEX repositories_shard_idx ON repositories (shard);`,
  },
  {
    version: 3,
    name: 'branch_protections_and_tag_changes',
    // docs/decisions/branch-protection.md: rules per repository, read by git-storage through
    // GetRefPolicy on every ref change. Patterns are compared exactly (branch names are
    // case-sensitive in git). Rows go with their repository.
    sql: `
ALTER TABLE repositories ADD COLUMN allow_tag_changes boolean NOT NULL DEFAULT false;

CREATE TABLE branch_protections (
  repository_id text NOT NULL REFERENCES repositories (id) ON DELETE CASCADE,
  pattern text NOT NULL,
  allow_force_pushes boolean NOT NULL DEFAULT false,
  allow_deletions boolean NOT NULL DEFAULT false,
  required_approvals integer NOT NULL DEFAULT 0 CHECK (required_approvals >= 0),
  required_status_checks text[] NOT NULL DEFAULT '{}',
  dismiss_stale_approvals boolean NOT NULL DEFAULT true,
  push text NOT NULL DEFAULT 'write' CHECK (push IN ('write', 'admin', 'nobody')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (repository_id, pattern)
);
`,
  },
  {
    version: 4,
    name: 'suspension_token_scopes_and_expiry',
    // services/accounts/README.md#users-and-tokens: a suspended user's tokens stop working; tokens carry scopes
    // (cumulative, stored closed: write includes read, admin includes write) and may expire.
    // Tokens issued before scopes existed keep what they could do: a site admin's all three.
    sql: `
ALTER TABLE users ADD COLUMN suspended_at timestamptz;

ALTER TABLE tokens ADD COLUMN scopes text[] NOT NULL DEFAULT '{read,write}';
ALTER TABLE tokens ADD COLUMN expires_at timestamptz;
UPDATE tokens SET scopes = '{read,write,admin}' WHERE user_id IN (SELECT id FROM users WHERE is_admin);
ALTER TABLE tokens ALTER COLUMN scopes DROP DEFAULT;
ALTER TABLE tokens ADD CONSTRAINT tokens_scopes_check CHECK (scopes <@ ARRAY['read', 'write', 'admin']::text[]);
`,
  },
  {
    version: 5,
    name: 'passwords_sessions_sign_in_failures',
    // services/accounts/README.md#sessions: an optional argon2id password per user; sign-in sessions stored by the
    // sha256 of their secret (never the secret), ended by deleting the row; failed sign-ins kept
    // for the rate limit's window. Times are written by the service (its clock decides expiry).
    sql: `
ALTER TABLE users ADD COLUMN password_hash text;

CREATE TABLE sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  secret_hash text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz NOT NULL,
  idle_expires_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  user_agent text,
  address text
);
CREATE INDEX sessions_user_id_idx ON sessions (user_id);

CREATE TABLE sign_in_failures (
  kind text NOT NULL CHECK (kind IN ('account', 'address')),
  key text NOT NULL,
  failed_at timestamptz NOT NULL
);
CREATE INDEX sign_in_failures_key_idx ON sign_in_failures (kind, key, failed_at);
-- Old failures are swept by age, whoever's they were.
CREATE INDEX sign_in_failures_failed_at_idx ON sign_in_failures (failed_at);
`,
  },
  {
    version: 6,
    name: 'repositories_pushed_at',
    // docs/decisions/explore-lists.md: the Explore list is newest activity first, the last push
    // (kept from git-storage's push events, consumer/push-consumer.ts) or else the creation. The
    // index is on the very expression the list orders by, so a page reads it in order.
    sql: `
ALTER TABLE repositories ADD COLUMN pushed_at timestamptz;
CREATE INDEX repositories_activity_idx ON repositories ((coalesce(pushed_at, created_at)) DESC, id);
`,
  },
  {
    version: 7,
    name: 'ssh_keys',
    // docs/decisions/ssh-keys.md: users' keys and repositories' deploy keys in one table, so the
    // one unique index on the fingerprint refuses a key already registered anywhere; each goes
    // with its user or repository (ON DELETE CASCADE), so a deleted owner's key is refused at once.
    sql: `
CREATE TABLE ssh_keys (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id text REFERENCES users (id) ON DELETE CASCADE,
  repository_id text REFERENCES repositories (id) ON DELETE CASCADE,
  title text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL UNIQUE,
  read_only boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((user_id IS NULL) <> (repository_id IS NULL))
);
CREATE INDEX ssh_keys_user_id_idx ON ssh_keys (user_id);
CREATE INDEX ssh_keys_repository_id_idx ON ssh_keys (repository_id);
`,
  },
  {
    version: 8,
    name: 'oauth2_provider',
    // docs/decisions/oauth2-provider.md: applications users register (Gitea's integer ids; the
    // secret kept only as its SHA-256, like tokens), oidc-provider's records in the one table its
    // adapter interface expects (keyed by model and id, with expiry; grant, uid and user code
    // looked up by index), and the ID token signing keys, generated once and reused.
    sql: `
CREATE TABLE oauth_applications (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name text NOT NULL,
  client_id text NOT NULL UNIQUE,
  client_secret_hash text,
  redirect_uris text[] NOT NULL,
  confidential boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_applications_user_id_idx ON oauth_applications (user_id);

CREATE TABLE oauth_records (
  model text NOT NULL,
  id text NOT NULL,
  payload jsonb NOT NULL,
  grant_id text,
  uid text,
  user_code text,
  account_id text,
  client_id text,
  expires_at timestamptz,
  PRIMARY KEY (model, id)
);
CREATE INDEX oauth_records_grant_id_idx ON oauth_records (grant_id);
CREATE INDEX oauth_records_uid_idx ON oauth_records (uid);
CREATE INDEX oauth_records_user_code_idx ON oauth_records (user_code);
CREATE INDEX oauth_records_account_client_idx ON oauth_records (account_id, client_id);
CREATE INDEX oauth_records_client_id_idx ON oauth_records (client_id);
CREATE INDEX oauth_records_expires_at_idx ON oauth_records (expires_at);

CREATE TABLE oauth_signing_keys (
  kid text PRIMARY KEY,
  jwk jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
`,
  },
  {
    version: 9,
    name: 'repositories_gitea_id',
    // docs/decisions/gitea-api.md#integer-ids: the integer id Gitea's JSON gives a repository,
    // packages/gitea-ids' giteaIdOf('repository', id) written in SQL (the first 48 bits of
    // SHA-256 over "repository\n<id>", modulo 2^48-1, plus one; the escape decoding takes the
    // text's bytes as they are once its backslashes are doubled), so GET /api/v1/repositories/{id}
    // finds the row by index. test/repositories.test.ts checks it against giteaIdOf.
    sql: `
ALTER TABLE repositories ADD COLUMN gitea_id bigint GENERATED ALWAYS AS (
  ('x' || left(encode(sha256(decode(replace('repository' || chr(10) || id, chr(92), chr(92) || chr(92)), 'escape')), 'hex'), 12))::bit(48)::bigint % 281474976710655 + 1
) STORED;
CREATE INDEX repositories_gitea_id_idx ON repositories (gitea_id);
`,
  },
  {
    version: 10,
    name: 'site_counts',
    // docs/decisions/explore-lists.md#the-count-of-a-page: the explore lists' totals without
    // counting every repository or user. One row, moved by triggers on the rows it counts, so every
    // writer keeps it, an older replica's during a rolling upgrade too (docs/operating.md); deferred
    // to commit, so the row is locked only while a transaction commits, not while a repository's
    // creation waits for git-storage. Started from the rows there are. A caller's own private
    // repositories are counted from an index of private rows only.
    sql: `
CREATE TABLE site_counts (
  one boolean PRIMARY KEY DEFAULT true CHECK (one),
  public_repositories bigint NOT NULL,
  repositories bigint NOT NULL,
  active_users bigint NOT NULL,
  users bigint NOT NULL
);
INSERT INTO site_counts (one, public_repositories, repositories, active_users, users)
  SELECT true, (SELECT count(*) FROM repositories WHERE NOT private), (SELECT count(*) FROM repositories),
         (SELECT count(*) FROM users WHERE suspended_at IS NULL), (SELECT count(*) FROM users);
CREATE FUNCTION site_counts_of_repositories() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE site_counts SET repositories = repositories + 1, public_repositories = public_repositories + (NOT NEW.private)::int;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE site_counts SET repositories = repositories - 1, public_repositories = public_repositories - (NOT OLD.private)::int;
  ELSIF NEW.private IS DISTINCT FROM OLD.private THEN
    UPDATE site_counts SET public_repositories = public_repositories + (NOT NEW.private)::int - (NOT OLD.private)::int;
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER repositories_site_counts AFTER INSERT OR DELETE OR UPDATE OF private ON repositories
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION site_counts_of_repositories();
CREATE FUNCTION site_counts_of_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE site_counts SET users = users + 1, active_users = active_users + (NEW.suspended_at IS NULL)::int;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE site_counts SET users = users - 1, active_users = active_users - (OLD.suspended_at IS NULL)::int;
  ELSIF (NEW.suspended_at IS NULL) <> (OLD.suspended_at IS NULL) THEN
    UPDATE site_counts SET active_users = active_users + (NEW.suspended_at IS NULL)::int - (OLD.suspended_at IS NULL)::int;
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER users_site_counts AFTER INSERT OR DELETE OR UPDATE OF suspended_at ON users
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION site_counts_of_users();
CREATE INDEX repositories_private_owner_idx ON repositories (owner_id) WHERE private;
`,
  },
  {
    version: 11,
    name: 'owner_counts',
    // docs/decisions/explore-lists.md#the-count-of-a-page: an owner's list (theirs, or a user's
    // page) without counting every repository of the owner: a row per owner, kept by the same
    // deferred trigger as site_counts (a function replaced, the trigger kept), upserted so an
    // owner's first repository makes it. No foreign key: a user deleted with their last
    // repositories in one transaction leaves the trigger's UPDATE nothing to find.
    sql: `
CREATE TABLE owner_counts (
  owner_id text PRIMARY KEY,
  public_repositories bigint NOT NULL,
  repositories bigint NOT NULL
);
INSERT INTO owner_counts (owner_id, public_repositories, repositories)
  SELECT owner_id, count(*) FILTER (WHERE NOT private), count(*) FROM repositories GROUP BY owner_id;
CREATE OR REPLACE FUNCTION site_counts_of_repositories() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE site_counts SET repositories = repositories + 1, public_repositories = public_repositories + (NOT NEW.private)::int;
    INSERT INTO owner_counts AS o (owner_id, public_repositories, repositories) VALUES (NEW.owner_id, (NOT NEW.private)::int, 1)
      ON CONFLICT (owner_id) DO UPDATE SET repositories = o.repositories + 1, public_repositories = o.public_repositories + EXCLUDED.public_repositories;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE site_counts SET repositories = repositories - 1, public_repositories = public_repositories - (NOT OLD.private)::int;
    UPDATE owner_counts SET repositories = repositories - 1, public_repositories = public_repositories - (NOT OLD.private)::int WHERE owner_id = OLD.owner_id;
  ELSIF NEW.private IS DISTINCT FROM OLD.private THEN
    UPDATE site_counts SET public_repositories = public_repositories + (NOT NEW.private)::int - (NOT OLD.private)::int;
    UPDATE owner_counts SET public_repositories = public_repositories + (NOT NEW.private)::int - (NOT OLD.private)::int WHERE owner_id = NEW.owner_id;
  END IF;
  RETURN NULL;
END
$$;
`,
  },
];

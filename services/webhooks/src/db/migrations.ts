import type { Migration } from '@githost/db';

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'webhooks and deliveries',
    sql: `
CREATE TABLE webhooks (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  repo_id text NOT NULL,
  url text NOT NULL,
  secret text,
  events text NOT NULL DEFAULT 'push',
  is_active boolean NOT NULL DEFAULT true,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_repo_idx ON webhooks (repo_id, created_at, seq);
-- payload is json, not jsonb: json keeps the producer's key order, so every attempt sends (and
-- signs) the same bytes. UNIQUE (webhook_id, event_id): a redelivered event records nothing new.
CREATE TABLE deliveries (
  id uuid PRIMARY KEY,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  webhook_id uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event text NOT NULL,
  payload json NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- attempts already made when the current round began (a redelivery starts a new round)
  round_start integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  response_status integer,
  error text,
  duration_ms integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_webhook_idx ON deliveries (webhook_id, created_at DESC, seq DESC);
CREATE TABLE delivery_attempts (
  delivery_id uuid NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  number integer NOT NULL,
  status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  error text,
  duration_ms integer NOT NULL,
  response_status integer,
  response_body text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (delivery_id, number)
);
`,
  },
  {
    version: 2,
    name: 'deliveries carry the request id of the change that caused them',
    // Operators follow one request from the gateway to the receiver's delivery (logs and rows).
    sql: 'ALTER TABLE deliveries ADD COLUMN request_id text;',
  },
  {
    version: 3,
    name: 'webhooks have a type: the format their deliveries are sent in',
    // docs/decisions/webhook-formats.md; existing webhooks keep githost's own format.
    sql: "ALTER TABLE webhooks ADD COLUMN type text NOT NULL DEFAULT 'githost' CHECK (type IN ('githost', 'gitea', 'slack'));",
  },
  {
    version: 4,
    name: 'deliveries are unique by their id alone',
    // A delivery's id is derived from (webhook, event id) (src/domain/delivery-id.ts), so the
    // primary key already refuses a second record of one event for one webhook; the second unique
    // index held a third of the table's index bytes, which every insert wrote and every vacuum
    // after retention read through (docs/decisions/database-upkeep.md#what-a-pass-holds).
    sql: 'ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_webhook_id_event_id_key;',
  },
];

-- Keyward key store: schema version 15, webhooks (applied after the versions before it).
--
-- webhook_endpoints: a developer's endpoints (at most 10, counted under the lock of the
-- developer's row of api_key_owners), each with its signing secret (whsec_...) and, after a roll,
-- the previous secret until its grace window ends; project_ids and event_types filter what it takes
-- (NULL: everything). webhook_events is the outbox: the audit append writes an event in the same
-- statement as its audit row, so neither commits without the other. A dispatcher fans events out
-- into webhook_deliveries (one per matching endpoint) and claims due deliveries with
-- FOR UPDATE SKIP LOCKED; a claim moves due_at past its lease, so a dispatcher killed while
-- delivering leaves its deliveries due again when the lease ends. webhook_attempts is the delivery
-- log: every attempt, its status, duration and the first 1 KB of the answer, kept 30 days.
--
-- Online: new tables and their indexes, created empty; nothing of the tables before changes.
-- A statement ends with a semicolon at the end of a line.

CREATE TABLE IF NOT EXISTS keyward.webhook_endpoints (
  id                         uuid        PRIMARY KEY,
  developer_id               text        NOT NULL,
  url                        text        NOT NULL,
  description                text,
  project_ids                text[],
  event_types                text[],
  secret                     text        NOT NULL,
  previous_secret            text,
  previous_secret_expires_at timestamptz,
  failing_since              timestamptz,
  disabled_at                timestamptz,
  created_at                 timestamptz NOT NULL DEFAULT now(),
  updated_at                 timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX IF NOT EXISTS webhook_endpoints_developer_idx
  ON keyward.webhook_endpoints (developer_id, created_at);

CREATE TABLE IF NOT EXISTS keyward.webhook_events (
  id           text        PRIMARY KEY,
  type         text        NOT NULL,
  developer_id text        NOT NULL,
  project_id   text,
  data         jsonb       NOT NULL,
  created_at   timestamptz NOT NULL,
  fanned_out   boolean     NOT NULL DEFAULT false
);

-- The events not yet fanned out, oldest first.
CREATE INDEX IF NOT EXISTS webhook_events_pending_idx
  ON keyward.webhook_events (created_at) WHERE NOT fanned_out;

CREATE TABLE IF NOT EXISTS keyward.webhook_deliveries (
  id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id    text        NOT NULL,
  endpoint_id uuid        NOT NULL,
  state       text        NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts    integer     NOT NULL DEFAULT 0,
  due_at      timestamptz NOT NULL,
  created_at  timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);

-- The deliveries due, soonest first.
CREATE INDEX IF NOT EXISTS webhook_deliveries_due_idx
  ON keyward.webhook_deliveries (due_at) WHERE state = 'pending';

CREATE TABLE IF NOT EXISTS keyward.webhook_attempts (
  id          uuid        PRIMARY KEY,
  delivery_id uuid        NOT NULL,
  event_id    text        NOT NULL,
  event_type  text        NOT NULL,
  endpoint_id uuid        NOT NULL,
  at          timestamptz NOT NULL,
  status      integer,
  duration_ms integer     NOT NULL,
  response    text        NOT NULL
);

-- An endpoint's log, newest first; and the oldest rows, for pruning.
CREATE INDEX IF NOT EXISTS webhook_attempts_endpoint_idx
  ON keyward.webhook_attempts (endpoint_id, at DESC);

CREATE INDEX IF NOT EXISTS webhook_attempts_at_idx
  ON keyward.webhook_attempts (at);

INSERT INTO keyward.keyward_migrations (version, name) VALUES (15, 'webhooks')
  ON CONFLICT (version) DO NOTHING;

-- Keyward key store: schema version 8, usage counts (applied after the versions before it).
--
-- One row per bucket (a minute, an hour or a day, in UTC), key and outcome of a verification:
-- `accepted`, or the refusal of a known key (`expired`, `wrong_project`, ...). A refusal of no
-- known key (`unknown`, `malformed`) has key_id, owner_type and owner_id '' and counts by the
-- route and client address refused; a key's row has route and address ''. Each process counts
-- in memory and adds its counts in batches (INSERT ... ON CONFLICT DO UPDATE SET count = count +
-- EXCLUDED.count); compaction rolls minutes older than their retention into hours, hours into
-- days, and deletes old days, in bounded batches. An hour or a day is read as the sum of its
-- rows of every granularity.
--
-- Online: a new table and its indexes, created empty; nothing else is locked.
-- A statement ends with a semicolon at the end of a line.

CREATE TABLE IF NOT EXISTS keyward.key_usage (
  granularity text        NOT NULL CHECK (granularity IN ('minute', 'hour', 'day')),
  bucket      timestamptz NOT NULL,
  key_id      text        NOT NULL,
  owner_type  text        NOT NULL,
  owner_id    text        NOT NULL,
  outcome     text        NOT NULL,
  route       text        NOT NULL,
  address     text        NOT NULL,
  count       bigint      NOT NULL,
  PRIMARY KEY (granularity, bucket, key_id, outcome, route, address)
);

-- Reading an owner's usage in a range: the endpoints' query.
CREATE INDEX IF NOT EXISTS key_usage_owner_idx
  ON keyward.key_usage (owner_type, owner_id, bucket) WHERE key_id <> '';

INSERT INTO keyward.keyward_migrations (version, name) VALUES (8, 'usage')
  ON CONFLICT (version) DO NOTHING;

-- Keyward key store: schema version 10, identities (applied after the versions before it).
--
-- An identity is one customer of the host's API within a project: its external_id (the host's
-- own id, unique in the project), metadata (a JSON object of at most 4 KB), named rate limits
-- (a JSON array of {name, limit, duration}) shared by its keys, and a credit pool like a key's
-- credits (remaining NULL: unlimited). An API key joins one through api_keys.identity_id.
--
-- The change feed: a change of what a verification answers of an identity (its external_id,
-- metadata, limits, or whether its pool is limited) notifies, from a trigger in the writing
-- transaction, the hash of every key of the identity, as a change of the key itself would; a
-- key joining or leaving one is a change of the key (identity_id is watched by the key trigger).
-- The store takes the identity's row lock (FOR SHARE) before a key joins it, so a key joining
-- while the identity changes is notified by one of the two writes after both are visible.
--
-- Online: a new table and its indexes, created empty; a nullable column without a default on
-- api_keys (recorded in the catalog, no table rewrite) and no foreign key (which would scan and
-- lock api_keys): the store checks that an identity exists, under its row lock, when a key
-- joins it. CREATE INDEX on api_keys blocks writes to api_keys (never verifications, which only
-- read) while it builds: milliseconds for thousands of keys. On a large table, build
-- api_keys_identity_idx beforehand with CREATE INDEX CONCURRENTLY under this name (outside a
-- transaction): the migration then finds it and builds nothing. The DROP and CREATE of the key
-- trigger take a brief lock of api_keys. A statement ends with a semicolon at the end of a line.

CREATE TABLE IF NOT EXISTS keyward.identities (
  id              uuid        PRIMARY KEY,
  project_id      text        NOT NULL,
  external_id     text        NOT NULL CHECK (char_length(external_id) BETWEEN 1 AND 255),
  metadata        jsonb,
  ratelimits      jsonb       NOT NULL DEFAULT '[]'::jsonb,
  remaining       bigint      CHECK (remaining >= 0),
  refill_amount   bigint,
  refill_interval text,
  refill_day      smallint,
  refilled_at     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);

-- An external id names one identity of its project; a lookup by it is one index scan.
CREATE UNIQUE INDEX IF NOT EXISTS identities_project_external_id_key
  ON keyward.identities (project_id, external_id);

-- A project's identities, newest first, a page at a time (a keyset after (created_at, id)).
CREATE INDEX IF NOT EXISTS identities_project_page_idx
  ON keyward.identities (project_id, created_at DESC, id DESC);

-- The identity the key belongs to (NULL: none). An API key only.
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS identity_id uuid;

-- An identity's keys, newest first; and the keys a change of the identity notifies.
CREATE INDEX IF NOT EXISTS api_keys_identity_idx
  ON keyward.api_keys (identity_id, created_at DESC, id DESC) WHERE identity_id IS NOT NULL;

DROP TRIGGER IF EXISTS api_keys_notify_change ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_change
  AFTER INSERT OR DELETE
    OR UPDATE OF hash, active, developer_id, project_id, name, expires_at, replaced_by,
      ip_allowlist, permissions, metadata, identity_id ON keyward.api_keys
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_key_change();

-- The keys of the identity, read with a snapshot taken when the trigger runs (after the row's
-- lock was granted): the identity's schema is the trigger's, so the function names no schema.
-- The query is built with format() and no numbered parameters (a driver that numbers its own,
-- such as Drizzle's, would take them for its own when it applies this file).
CREATE OR REPLACE FUNCTION keyward.notify_identity_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT pg_notify(%L, json_build_object(%L, %L, %L, hash, %L, id, %L, pg_current_wal_insert_lsn()::text)::text) FROM %I.api_keys WHERE identity_id = %L',
    'keyward_key_changes', 'schema', TG_TABLE_SCHEMA, 'hash', 'id', 'position', TG_TABLE_SCHEMA,
    CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END); RETURN NULL; END
$$;

DROP TRIGGER IF EXISTS identities_notify_change ON keyward.identities;

CREATE TRIGGER identities_notify_change
  AFTER UPDATE ON keyward.identities
  FOR EACH ROW WHEN ((OLD.external_id, OLD.metadata, OLD.ratelimits, OLD.remaining IS NULL)
    IS DISTINCT FROM (NEW.external_id, NEW.metadata, NEW.ratelimits, NEW.remaining IS NULL))
  EXECUTE FUNCTION keyward.notify_identity_change();

DROP TRIGGER IF EXISTS identities_notify_delete ON keyward.identities;

CREATE TRIGGER identities_notify_delete
  AFTER DELETE ON keyward.identities
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_identity_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (10, 'identities')
  ON CONFLICT (version) DO NOTHING;

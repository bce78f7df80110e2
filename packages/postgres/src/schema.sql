-- Keyward key store: schema version 1.
--
-- Apply it as it is (psql -f schema.sql) or let migrate() apply it. Every statement is
-- idempotent. To keep the tables in another schema than `keyward`, use migrate() with the
-- `schema` option: it puts that name where this file says `keyward`.
-- A statement ends with a semicolon at the end of a line.

CREATE SCHEMA IF NOT EXISTS keyward;

-- Which versions of this schema are applied (migrate() reads and writes it).
CREATE TABLE IF NOT EXISTS keyward.keyward_migrations (
  version    integer     PRIMARY KEY,
  name       text        NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- One row per issued key. The full key is never stored: only its SHA-256 (hex) and its
-- first 8 characters. A key belongs to a developer or to a project, never both: that
-- association decides its type.
CREATE TABLE IF NOT EXISTS keyward.api_keys (
  id           uuid        PRIMARY KEY,
  hash         text        NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
  key_prefix   text        NOT NULL CHECK (char_length(key_prefix) = 8),
  developer_id text,
  project_id   text,
  name         text,
  active       boolean     NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT api_keys_one_owner CHECK ((developer_id IS NULL) <> (project_id IS NULL))
);

-- Verification looks a key up by its hash: unique, and the hot path.
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_hash_key ON keyward.api_keys (hash);

-- Listing an owner's keys (oldest first) and counting its active ones.
CREATE INDEX IF NOT EXISTS api_keys_developer_idx
  ON keyward.api_keys (developer_id, created_at) WHERE developer_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS api_keys_project_idx
  ON keyward.api_keys (project_id, created_at) WHERE project_id IS NOT NULL;

-- One row per owner that has had a limited key: the row that creations and re-activations
-- lock, so that "at most N active keys" holds across connections and processes.
CREATE TABLE IF NOT EXISTS keyward.api_key_owners (
  owner_type text NOT NULL CHECK (owner_type IN ('developer', 'project')),
  owner_id   text NOT NULL,
  PRIMARY KEY (owner_type, owner_id)
);

INSERT INTO keyward.keyward_migrations (version, name) VALUES (1, 'initial')
  ON CONFLICT (version) DO NOTHING;

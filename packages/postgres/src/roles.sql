-- Keyward key store: schema version 14, roles (applied after the versions before it).
--
-- A role is a named set of permissions within a project (name 1 to 100 characters, unique in
-- the project; permissions declared by the host, or wildcards such as reports:* and *, never
-- NULL as the store writes them, though a list column is left nullable for Prisma). An API
-- key holds roles through api_keys.role_ids (NULL: none), and may do what its own permissions
-- and its roles' allow. The key service checks every value before it writes it.
--
-- The change feed: a change of a role's name or permissions, and its deletion, notify, from a
-- trigger in the writing transaction, the hash of every key that holds it, as a change of the key
-- itself would; a key given or relieved of roles is a change of the key (role_ids is watched by
-- the key trigger). A deletion of a role keys hold takes it from them (array_remove) in the same
-- transaction, or is refused.
--
-- Online: a new table and its indexes, created empty; a nullable column without a default on
-- api_keys (recorded in the catalog, no table rewrite) and no foreign key (which would scan and
-- lock api_keys). CREATE INDEX on api_keys blocks writes to api_keys (never verifications,
-- which only read) while it builds; the partial index holds only keys with roles, none before
-- this version. On a large table, build api_keys_role_ids_idx beforehand with CREATE INDEX
-- CONCURRENTLY under this name (outside a transaction): the migration then finds it. The DROP
-- and CREATE of the key trigger take a brief lock of api_keys. A statement ends with a
-- semicolon at the end of a line.

CREATE TABLE IF NOT EXISTS keyward.roles (
  id          uuid        PRIMARY KEY,
  project_id  text        NOT NULL,
  name        text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  permissions text[],
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A name names one role of its project; a lookup by names is one index scan.
CREATE UNIQUE INDEX IF NOT EXISTS roles_project_name_key
  ON keyward.roles (project_id, name);

-- A project's roles, newest first, a page at a time (a keyset after (created_at, id)).
CREATE INDEX IF NOT EXISTS roles_project_page_idx
  ON keyward.roles (project_id, created_at DESC, id DESC);

-- The roles the key holds (NULL: none). An API key only.
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS role_ids uuid[];

-- The keys that hold a role: the keys a change of the role notifies, and those a deletion detaches.
CREATE INDEX IF NOT EXISTS api_keys_role_ids_idx
  ON keyward.api_keys USING gin (role_ids) WHERE role_ids IS NOT NULL;

DROP TRIGGER IF EXISTS api_keys_notify_change ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_change
  AFTER INSERT OR DELETE
    OR UPDATE OF hash, active, developer_id, project_id, name, expires_at, replaced_by,
      ip_allowlist, permissions, metadata, identity_id, ratelimits, role_ids ON keyward.api_keys
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_key_change();

-- The keys that hold the role, read with a snapshot taken when the trigger runs. As
-- notify_identity_change: format() and no numbered parameters.
CREATE OR REPLACE FUNCTION keyward.notify_role_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT pg_notify(%L, json_build_object(%L, %L, %L, hash, %L, id, %L, pg_current_wal_insert_lsn()::text)::text) FROM %I.api_keys WHERE role_ids @> ARRAY[%L]::uuid[]',
    'keyward_key_changes', 'schema', TG_TABLE_SCHEMA, 'hash', 'id', 'position', TG_TABLE_SCHEMA,
    CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END); RETURN NULL; END
$$;

DROP TRIGGER IF EXISTS roles_notify_change ON keyward.roles;

CREATE TRIGGER roles_notify_change
  AFTER UPDATE ON keyward.roles
  FOR EACH ROW WHEN ((OLD.name, OLD.permissions) IS DISTINCT FROM (NEW.name, NEW.permissions))
  EXECUTE FUNCTION keyward.notify_role_change();

DROP TRIGGER IF EXISTS roles_notify_delete ON keyward.roles;

CREATE TRIGGER roles_notify_delete
  AFTER DELETE ON keyward.roles
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_role_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (14, 'roles')
  ON CONFLICT (version) DO NOTHING;

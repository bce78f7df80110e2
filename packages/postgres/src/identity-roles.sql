-- Keyward key store: schema version 16, the roles of identities (applied after the versions before it).
--
-- An identity holds roles of its project through identities.role_ids (NULL: none): every key of
-- the identity may do what they allow, besides its own permissions and roles. The key service
-- checks every value before it writes it.
--
-- The change feed: a change of an identity's roles notifies, from the identity's trigger, the
-- hash of every key of the identity (role_ids is watched with external_id, metadata and
-- ratelimits); a change of a role's name or permissions, and its deletion, notify the keys that
-- hold it and the keys whose identity holds it. A deletion of a role that identities hold takes
-- it from them (array_remove) in the same transaction as from the keys, or is refused.
--
-- Online: a nullable column without a default on identities (recorded in the catalog, no table
-- rewrite) and no foreign key. CREATE INDEX on identities blocks writes to identities (never
-- verifications, which only read) while it builds; the partial index holds only identities with
-- roles, none before this version. The DROP and CREATE of the identity trigger take a brief lock
-- of identities. A statement ends with a semicolon at the end of a line.

-- The roles the identity holds (NULL: none).
ALTER TABLE keyward.identities ADD COLUMN IF NOT EXISTS role_ids uuid[];

-- The identities that hold a role: those whose keys a change of the role notifies, and those a
-- deletion detaches.
CREATE INDEX IF NOT EXISTS identities_role_ids_idx
  ON keyward.identities USING gin (role_ids) WHERE role_ids IS NOT NULL;

DROP TRIGGER IF EXISTS identities_notify_change ON keyward.identities;

CREATE TRIGGER identities_notify_change
  AFTER UPDATE ON keyward.identities
  FOR EACH ROW WHEN ((OLD.external_id, OLD.metadata, OLD.ratelimits, OLD.remaining IS NULL, OLD.role_ids)
    IS DISTINCT FROM (NEW.external_id, NEW.metadata, NEW.ratelimits, NEW.remaining IS NULL, NEW.role_ids))
  EXECUTE FUNCTION keyward.notify_identity_change();

-- The keys that hold the role, and those whose identity holds it, read with a snapshot taken
-- when the trigger runs. As notify_identity_change: format() and no numbered parameters.
CREATE OR REPLACE FUNCTION keyward.notify_role_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('SELECT pg_notify(%L, json_build_object(%L, %L, %L, hash, %L, id, %L, pg_current_wal_insert_lsn()::text)::text) FROM %I.api_keys WHERE role_ids @> ARRAY[%L]::uuid[] OR identity_id IN (SELECT id FROM %I.identities WHERE role_ids @> ARRAY[%L]::uuid[])',
    'keyward_key_changes', 'schema', TG_TABLE_SCHEMA, 'hash', 'id', 'position', TG_TABLE_SCHEMA,
    CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END, TG_TABLE_SCHEMA,
    CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END); RETURN NULL; END
$$;

INSERT INTO keyward.keyward_migrations (version, name) VALUES (16, 'identity_roles')
  ON CONFLICT (version) DO NOTHING;

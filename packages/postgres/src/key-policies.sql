-- Keyward key store: schema version 6, access policies of API keys (applied after version 5).
--
-- An API key may carry an IP allowlist (addresses and CIDR ranges, as text), permissions (names
-- the host declares) and metadata (a JSON object of at most 4 KB). NULL means none: anywhere,
-- every permission, no metadata. The key service checks every value before it writes it; a
-- stored allowlist it cannot read refuses every request of that key (fail closed).
--
-- Online: the columns are nullable without a default (recorded in the catalog, no table
-- rewrite). The change feed's trigger is replaced so that a change of policies is a change on the
-- feed: every process's verification cache forgets the key, within the revocation bound. The
-- DROP and CREATE of the trigger take a brief lock of api_keys (verifications only read and do
-- not wait). A statement ends with a semicolon at the end of a line.

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS ip_allowlist text[];

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS permissions text[];

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS metadata jsonb;

DROP TRIGGER IF EXISTS api_keys_notify_change ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_change
  AFTER INSERT OR DELETE
    OR UPDATE OF hash, active, developer_id, project_id, name, expires_at, replaced_by,
      ip_allowlist, permissions, metadata ON keyward.api_keys
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_key_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (6, 'key_policies')
  ON CONFLICT (version) DO NOTHING;

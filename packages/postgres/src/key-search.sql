-- Keyward key store: schema version 12, indexed search of listings (applied after version 11).
--
-- A project's key listing narrows to `?q=` (a name that contains it, in any case, or a prefix that
-- starts with it) and `?status=` (active, expired, revoked); the audit log to one key's rows. Each
-- is answered from an index here rather than by reading every key of the project:
-- - a prefix: a range of (project_id, key_prefix) compared byte by byte (text_pattern_ops);
-- - revoked and active keys, newest first: (project_id, active, created_at DESC, id DESC);
-- - expired keys: the active keys with an expiry, by expiry, a range up to now;
-- - a key's audit rows, newest first: (target_id, seq DESC) of the rows about keys;
-- - a name or an identity's external id that contains the search (ILIKE): a trigram index (which
--   folds case as ILIKE does), only where the extension pg_trgm is installed in the database when this version is
--   applied. Keyward never installs an extension: run `CREATE EXTENSION pg_trgm` first (a trusted
--   extension: the database's owner may) to have it. Without it a search by name reads the
--   project's keys in order until the page is full (every key when few or none match).
--   `keyward doctor` names the index missing when pg_trgm is installed later.
-- Developer keys (a handful per developer) are read by the page index of version 5.
--
-- Online: new indexes only. CREATE INDEX blocks writes to its table (never verifications, which
-- only read) while it builds: well under a second for 100,000 keys. On a large table, build them
-- beforehand with CREATE INDEX CONCURRENTLY under these names (outside a transaction): the
-- migration then finds them and builds nothing; `keyward doctor` reports one that a failed
-- concurrent build left invalid. A statement ends with a semicolon at the end of a line.

CREATE INDEX IF NOT EXISTS api_keys_project_prefix_idx
  ON keyward.api_keys (project_id, key_prefix text_pattern_ops) WHERE project_id IS NOT NULL;

CREATE INDEX IF NOT EXISTS api_keys_project_status_idx
  ON keyward.api_keys (project_id, active, created_at DESC, id DESC) WHERE project_id IS NOT NULL;

CREATE INDEX IF NOT EXISTS api_keys_project_expiry_idx
  ON keyward.api_keys (project_id, expires_at)
  WHERE project_id IS NOT NULL AND active AND expires_at IS NOT NULL;

CREATE INDEX IF NOT EXISTS audit_log_key_idx
  ON keyward.audit_log (target_id, seq DESC) WHERE target_type = 'key';

-- The trigram indexes, with the operator class of the schema pg_trgm is installed in (a DO block:
-- each semicolon inside it is followed by more on its line).
DO $$ DECLARE trgm text := (SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pg_trgm'); BEGIN
  IF trgm IS NOT NULL THEN
    EXECUTE format('CREATE INDEX IF NOT EXISTS api_keys_name_trgm_idx
      ON keyward.api_keys USING gin (name %s.gin_trgm_ops)', trgm); EXECUTE format(
      'CREATE INDEX IF NOT EXISTS identities_external_id_trgm_idx
      ON keyward.identities USING gin (external_id %s.gin_trgm_ops)', trgm); END IF; END $$;

INSERT INTO keyward.keyward_migrations (version, name) VALUES (12, 'key_search')
  ON CONFLICT (version) DO NOTHING;

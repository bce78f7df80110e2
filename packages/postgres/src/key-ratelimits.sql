-- Keyward key store: schema version 11, stored rate limits of API keys (applied after version 10).
--
-- An API key may carry up to 5 named rate limits of its own, as an identity does: a JSON array of
-- {name, limit, duration} (duration in milliseconds of whole seconds, 1 s to 1 day). NULL means
-- none. The key service checks every value before it writes it. The requests themselves are
-- counted elsewhere (the host's limiter backend: Redis, PostgreSQL or memory), never here: this
-- column is written when the limits change, never per request.
--
-- Online: the column is nullable without a default (recorded in the catalog, no table rewrite).
-- The change feed's trigger is replaced so that a change of a key's limits is a change on the
-- feed: every process's verification cache forgets the key, within the revocation bound. The
-- DROP and CREATE of the trigger take a brief lock of api_keys (verifications only read and do
-- not wait). A statement ends with a semicolon at the end of a line.

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS ratelimits jsonb;

DROP TRIGGER IF EXISTS api_keys_notify_change ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_change
  AFTER INSERT OR DELETE
    OR UPDATE OF hash, active, developer_id, project_id, name, expires_at, replaced_by,
      ip_allowlist, permissions, metadata, identity_id, ratelimits ON keyward.api_keys
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_key_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (11, 'key_ratelimits')
  ON CONFLICT (version) DO NOTHING;

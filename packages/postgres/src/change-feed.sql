-- Keyward key store: schema version 3, the change feed (applied after version 2).
--
-- Every write to a key record that matters to verification sends a notification on the
-- channel `keyward_key_changes`, from a trigger, in the writing transaction: PostgreSQL
-- delivers it when (and only if) the transaction commits. The payload is JSON,
-- {"schema","hash","id","position"}: the record's schema, the SHA-256 of its key (never the
-- key), its id, and the WAL insert position at the change (before the commit record).
-- Processes that cache verifications LISTEN on that channel and forget the record.
-- The trigger fires on the columns verification reads, the lifecycle's included (a roll
-- writes replaced_by and expires_at), and not on last_used_at: writing a key's last use
-- sends no notification. A later version that adds a column verification reads adds it to
-- `UPDATE OF` below.
-- A statement ends with a semicolon at the end of a line.

CREATE OR REPLACE FUNCTION keyward.notify_key_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('keyward_key_changes', json_build_object(
    'schema', TG_TABLE_SCHEMA, 'hash', changed.hash, 'id', changed.id,
    'position', pg_current_wal_insert_lsn()::text)::text)
  FROM (SELECT OLD.hash, OLD.id WHERE TG_OP <> 'INSERT'
        UNION SELECT NEW.hash, NEW.id WHERE TG_OP <> 'DELETE') AS changed (hash, id); RETURN NULL; END
$$;

DROP TRIGGER IF EXISTS api_keys_notify_change ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_change
  AFTER INSERT OR DELETE
    OR UPDATE OF hash, active, developer_id, project_id, name, expires_at, replaced_by ON keyward.api_keys
  FOR EACH ROW EXECUTE FUNCTION keyward.notify_key_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (3, 'change_feed')
  ON CONFLICT (version) DO NOTHING;

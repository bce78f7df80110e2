-- Keyward key store: schema version 17, credit events and the expiry scan (applied after the
-- versions before it).
--
-- A key's credits, and an identity's pool, may carry a low-credits threshold in credits_low_at
-- (NULL: none): {"remaining": N} or {"percent": P} of the refill amount, checked by the key
-- service before it writes it. Leases return it, and the service writes `credits.low` and
-- `credits.exhausted` into the outbox from their results (never per request).
--
-- refill_due_at is when the next refill of a key or pool with a refill rule is due, as the
-- scheduler of `credits.refilled` last saw it (NULL: never looked at since its credits were set).
-- The scheduler takes the rows due, under its advisory lock, applies the refill, moves
-- refill_due_at to the next one and writes the events in the same transaction; the partial
-- indexes hold only rows with a refill rule, so a round reads the due ones, not every key.
--
-- Online: nullable columns without a default (recorded in the catalog, no table rewrite).
-- CREATE INDEX blocks writes to its table (never verifications, which only read) while it
-- builds; it holds only metered rows with a refill rule. A statement ends with a semicolon at the
-- end of a line.

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS credits_low_at jsonb;
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS refill_due_at timestamptz;
ALTER TABLE keyward.identities ADD COLUMN IF NOT EXISTS credits_low_at jsonb;
ALTER TABLE keyward.identities ADD COLUMN IF NOT EXISTS refill_due_at timestamptz;

CREATE INDEX IF NOT EXISTS api_keys_refill_due_idx
  ON keyward.api_keys (refill_due_at) WHERE refill_amount IS NOT NULL AND remaining IS NOT NULL;

CREATE INDEX IF NOT EXISTS identities_refill_due_idx
  ON keyward.identities (refill_due_at) WHERE refill_amount IS NOT NULL AND remaining IS NOT NULL;

-- The expiry scheduler's scan (`key.expiring`, `key.expired`): the active keys not replaced by a
-- roll whose expiry falls in a window, read by expiry alone, across every owner.
CREATE INDEX IF NOT EXISTS api_keys_expiry_scan_idx
  ON keyward.api_keys (expires_at) WHERE active AND replaced_by IS NULL AND expires_at IS NOT NULL;

-- A key's threshold is on the records that verification caches hold: a change of it (a PATCH of
-- the key, or a change of credits that clears it) goes on the change feed, as a policy's does.
DROP TRIGGER IF EXISTS api_keys_notify_credits_low_at ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_credits_low_at
  AFTER UPDATE OF credits_low_at ON keyward.api_keys
  FOR EACH ROW WHEN (OLD.credits_low_at IS DISTINCT FROM NEW.credits_low_at)
  EXECUTE FUNCTION keyward.notify_key_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (17, 'credit_events')
  ON CONFLICT (version) DO NOTHING;

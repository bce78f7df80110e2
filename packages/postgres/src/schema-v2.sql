-- Keyward key store: schema version 2, the key lifecycle (expiry, roll, last used).
--
-- An online migration: it only adds nullable columns without a default, which PostgreSQL
-- records in its catalog without rewriting the table, so the lock it takes is brief.
-- migrate() bounds the wait for that lock (lock_timeout) and tries again rather than
-- queue every verification behind a long transaction. Every statement is idempotent.

-- When the key stops passing authentication (NULL: never). A rolled key gets the end of its
-- grace window here.
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS expires_at timestamptz;

-- When the key last passed authentication, written off the hot path, in batches.
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS last_used_at timestamptz;

-- The key that replaced this one by a roll (NULL: not rolled). A rolled key is in its grace
-- window until expires_at, counts for nothing against the limit and cannot be rolled again.
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS replaced_by uuid;

INSERT INTO keyward.keyward_migrations (version, name) VALUES (2, 'lifecycle')
  ON CONFLICT (version) DO NOTHING;

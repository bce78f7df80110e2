-- Keyward key store: schema version 13, the pepper of a key's hash (applied after version 12).
--
-- With the service's option `hashing.pepper`, a key is stored as HMAC-SHA-256, under the newest
-- pepper, of the key's SHA-256; `pepper_id` names that pepper (never its secret, which only the
-- service holds). NULL means a plain SHA-256, as every key written before this version and every
-- key of a service without peppers. A lookup asks for all the hashes a key may be stored under in
-- one statement (hash = ANY(...)), on the unique index of `hash`.
--
-- Online: the column is nullable without a default (recorded in the catalog, no table rewrite).
-- The change feed's trigger needs no change: a key's pepper changes only with its hash, which it
-- watches. A statement ends with a semicolon at the end of a line.

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS pepper_id text;

INSERT INTO keyward.keyward_migrations (version, name) VALUES (13, 'key_pepper')
  ON CONFLICT (version) DO NOTHING;

-- Keyward key store: schema version 5, paged listings and why a key was revoked (applied after
-- version 4).
--
-- Listings page newest first with a keyset query, (created_at, id) descending after a cursor,
-- on an owner's index that holds both: one index scan per page, however deep the page. The
-- indexes of version 1, (owner, created_at), stay: they serve the limit's count and the whole
-- listing, oldest first.
--
-- Online: the column is nullable without a default (recorded in the catalog, no table rewrite).
-- CREATE INDEX blocks writes to api_keys (never verifications, which only read) while it builds:
-- milliseconds for thousands of keys. On a large table, build the indexes beforehand with
-- CREATE INDEX CONCURRENTLY under these names (outside a transaction): the migration then finds
-- them and builds nothing. A statement ends with a semicolon at the end of a line.

-- Why the key was deactivated: 'leaked' (a secret-scanning report) or 'revoked' (any other
-- deactivation); NULL while it is active, and for keys deactivated before this version. No
-- CHECK: adding one would read the whole table under the ALTER's lock; the store writes only
-- these two values.
ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS revoked_reason text;

CREATE INDEX IF NOT EXISTS api_keys_developer_page_idx
  ON keyward.api_keys (developer_id, created_at DESC, id DESC) WHERE developer_id IS NOT NULL;

CREATE INDEX IF NOT EXISTS api_keys_project_page_idx
  ON keyward.api_keys (project_id, created_at DESC, id DESC) WHERE project_id IS NOT NULL;

INSERT INTO keyward.keyward_migrations (version, name) VALUES (5, 'key_pages')
  ON CONFLICT (version) DO NOTHING;

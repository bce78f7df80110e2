-- Keyward key store: schema version 4, closed owners (applied after version 3).
--
-- deactivateOwnerKeys() closes an owner (a deleted project or developer): it writes closed_at
-- on the owner's row in api_key_owners and deactivates its keys, in one transaction that holds
-- the row's lock. From this version on, every write that can make a key active (an insert, an
-- activation, a roll) takes the same row lock first, creating the row for an owner that has
-- none yet, and refuses a closed owner: a key created while its owner is being deleted is
-- either refused or deactivated by the deletion, never left active.
--
-- An online migration: a nullable column without a default, recorded in the catalog without
-- rewriting the table. A statement ends with a semicolon at the end of a line.

-- When the owner was closed (NULL: open). A closed owner stays closed.
ALTER TABLE keyward.api_key_owners ADD COLUMN IF NOT EXISTS closed_at timestamptz;

INSERT INTO keyward.keyward_migrations (version, name) VALUES (4, 'closed_owners')
  ON CONFLICT (version) DO NOTHING;

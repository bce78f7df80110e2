-- Keyward key store: schema version 9, the audit log (applied after the versions before it).
--
-- audit_log holds a row for every change of a key, a project or a developer, and every console
-- sign-in and sign-out: who (actor), from where (client_address), in which request (request_id),
-- when (at), what (action, target_type, target_id) and the changed fields (before, after). It
-- never holds key material: a key is named by its id and its 8-character prefix. A row is written
-- in the transaction of its change, so neither commits without the other.
--
-- Tamper evidence: each row's hash is SHA-256 of the canonical JSON of the row (previous_hash
-- included), so every row is chained to the one before, in one chain for the whole schema.
-- audit_chain holds the chain's head (the last seq and hash): an append locks that one row FOR
-- UPDATE until its transaction ends, so appends run one after the other and the chain never forks.
-- The lock is a row lock of the transaction, never of the session: it works through a
-- transaction pooler (PgBouncer in transaction mode). start_seq and start_hash say where the rows
-- begin: 0 and the genesis hash, unless an operator pruned the oldest rows (see the docs).
--
-- Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE of audit_log, for every role that
-- does not first disable the trigger (which only the table's owner or a superuser may).
--
-- Online: two new tables; no lock on the existing ones. A statement ends with a semicolon at
-- the end of a line.

CREATE TABLE IF NOT EXISTS keyward.audit_log (
  seq            bigint      PRIMARY KEY,
  at             timestamptz NOT NULL,
  action         text        NOT NULL,
  actor          jsonb       NOT NULL,
  client_address text,
  request_id     text,
  developer_id   text,
  project_id     text,
  target_type    text        NOT NULL,
  target_id      text        NOT NULL,
  before         jsonb,
  after          jsonb,
  previous_hash  text        NOT NULL,
  hash           text        NOT NULL
);

-- A developer's rows, newest first (GET /api/v1/audit), and a project's.
CREATE INDEX IF NOT EXISTS audit_log_developer_idx ON keyward.audit_log (developer_id, seq DESC);

CREATE INDEX IF NOT EXISTS audit_log_project_idx ON keyward.audit_log (project_id, seq DESC)
  WHERE project_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS keyward.audit_chain (
  id         smallint PRIMARY KEY CHECK (id = 1),
  seq        bigint   NOT NULL,
  hash       text     NOT NULL,
  start_seq  bigint   NOT NULL,
  start_hash text     NOT NULL
);

INSERT INTO keyward.audit_chain (id, seq, hash, start_seq, start_hash)
  VALUES (1, 0, repeat('0', 64), 0, repeat('0', 64))
  ON CONFLICT (id) DO NOTHING;

CREATE OR REPLACE FUNCTION keyward.refuse_audit_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only: % of %.% refused', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege'; END
$$;

DROP TRIGGER IF EXISTS audit_log_append_only ON keyward.audit_log;

CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON keyward.audit_log
  FOR EACH ROW EXECUTE FUNCTION keyward.refuse_audit_change();

DROP TRIGGER IF EXISTS audit_log_no_truncate ON keyward.audit_log;

CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON keyward.audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION keyward.refuse_audit_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (9, 'audit_log')
  ON CONFLICT (version) DO NOTHING;

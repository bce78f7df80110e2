-- Keyward key store: schema version 7, credits of API keys (applied after version 6).
--
-- An API key may carry credits: `remaining` (NULL: unlimited) and a refill rule (amount, 'daily'
-- or 'monthly' on refill_day 1-31, clamped to the month's end, at 00:00 UTC). `refilled_at` is
-- the start of the last refill period applied. Processes lease credits in blocks with one
-- conditional UPDATE that applies a due refill first: the row lock makes a period refill once,
-- however many processes ask. A lease writes remaining and refilled_at only, which the change
-- feed's trigger does not watch; a change between unlimited and limited is on the feed (a
-- trigger of its own), so that verifications start or stop spending.
--
-- Online: the columns are nullable without a default (recorded in the catalog, no table
-- rewrite); the CHECK is NOT VALID (no scan of the table; the new column is NULL in every row).
-- A statement ends with a semicolon at the end of a line.

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS remaining bigint;

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS refill_amount bigint;

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS refill_interval text;

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS refill_day smallint;

ALTER TABLE keyward.api_keys ADD COLUMN IF NOT EXISTS refilled_at timestamptz;

ALTER TABLE keyward.api_keys DROP CONSTRAINT IF EXISTS api_keys_remaining_check;

ALTER TABLE keyward.api_keys ADD CONSTRAINT api_keys_remaining_check CHECK (remaining >= 0) NOT VALID;

-- The start of the refill period that holds `at`: 00:00 UTC of its day, or of the refill day of
-- its month (clamped to the month's end), or of the month before when that day is still to come.
CREATE OR REPLACE FUNCTION keyward.credit_period_start(refill_interval text, refill_day integer, at timestamptz)
RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN refill_interval = 'daily' THEN date_trunc('day', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
    WHEN this_month <= at THEN this_month ELSE last_month END
  FROM (SELECT
      (m + (least(refill_day, extract(day FROM m + interval '1 month' - interval '1 day')::integer) - 1)
        * interval '1 day') AT TIME ZONE 'UTC' AS this_month,
      (m - interval '1 month' + (least(refill_day, extract(day FROM m - interval '1 day')::integer) - 1)
        * interval '1 day') AT TIME ZONE 'UTC' AS last_month
    FROM (SELECT date_trunc('month', at AT TIME ZONE 'UTC') AS m) AS month) AS days
$$;

DROP TRIGGER IF EXISTS api_keys_notify_credit_limit ON keyward.api_keys;

CREATE TRIGGER api_keys_notify_credit_limit
  AFTER UPDATE OF remaining ON keyward.api_keys
  FOR EACH ROW WHEN ((OLD.remaining IS NULL) <> (NEW.remaining IS NULL))
  EXECUTE FUNCTION keyward.notify_key_change();

INSERT INTO keyward.keyward_migrations (version, name) VALUES (7, 'credits')
  ON CONFLICT (version) DO NOTHING;

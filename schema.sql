-- Fracas event store (PostgreSQL 14 or later).
--
-- The install: sections in install order, nothing else. Every statement is idempotent
-- (CREATE ... IF NOT EXISTS, CREATE OR REPLACE), so the server runs this whole file at
-- every start that finds it changed (server/store/db.py notes its digest). Run it in ONE
-- transaction (server/store/db.py does; by hand: psql -1 -f schema.sql): the advisory
-- lock below then serialises two processes starting at once on the same database.
--
-- No step here upgrades an older database (no DROP, RENAME or ALTER ... DROP): no
-- database has been deployed yet. From the first release on, a change to an installed
-- database will come as a numbered file in server/store/migrations/ (docs/operating.md).

SELECT pg_advisory_xact_lock(hashtext('fracas:schema'));
SET LOCAL client_min_messages = warning;  -- no "already exists, skipping" at every start


-- ---------------------------------------------------------------------------
-- Table: events
--
-- Invariants:
--   * version is gapless per stream and starts at 1 (UNIQUE (stream, version), and
--     the trigger events_append_checks admits only current_version + 1).
--   * position is global. A reader of read_all never skips an event committed
--     before one it has already seen (see "Ordering for tailing readers" below).
--   * hash = sha256(prev_hash bytes + canonical envelope), computed by the server
--     (domain/chain.py); prev_hash of version 1 is 64 zeros. The chain makes any
--     later change of a row detectable.
--   * rows are never updated or deleted (trigger below; the app role has no grant).
--   * xact_id is a transaction-id horizon used only by tailing readers: once every
--     transaction below it has finished, no lower position can still appear.
-- ---------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS events (
  position    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  stream      text        NOT NULL CHECK (stream <> ''),
  version     bigint      NOT NULL CHECK (version >= 1),
  type        text        NOT NULL CHECK (type ~ '^[a-z][a-z0-9_]*$'),  -- snake_case tags
  data        jsonb       NOT NULL CHECK (jsonb_typeof(data) = 'object'),
  meta        jsonb       NOT NULL CHECK (jsonb_typeof(meta) = 'object'),
  recorded_at timestamptz NOT NULL,
  prev_hash   text        NOT NULL CHECK (prev_hash ~ '^[0-9a-f]{64}$'),
  hash        text        NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
  xact_id     xid8        NOT NULL DEFAULT pg_current_xact_id(),  -- set by the trigger
  CONSTRAINT events_stream_version_key UNIQUE (stream, version)
);

-- Reading a stream uses the (stream, version) unique index. Reading everything
-- after a position uses the primary key's index on position: no extra index needed.
-- The deadline watcher (server/services/deadlines.py) pages through the encounters that
-- set a turn deadline, by stream, with this small partial index (one row per such one).
CREATE INDEX IF NOT EXISTS events_deadline_opened_idx ON events (stream)
  WHERE version = 1 AND type = 'encounter_opened' AND data->'settings' ? 'deadline.hours';

COMMENT ON TABLE events IS
  'Append-only event log. Version gapless per stream; position global; hash-chained per stream.';


-- ---------------------------------------------------------------------------
-- Append-only, in the database itself
--
-- UPDATE and DELETE are refused row by row, TRUNCATE per statement. Even the table
-- owner is refused; only a superuser who disables the trigger on purpose can change
-- a row, and the hash chain then shows it.
-- ---------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION fracas_events_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'fracas: events are append-only, % refused', TG_OP
    USING HINT = 'Append compensating events instead.';
END;
$$;

CREATE OR REPLACE TRIGGER events_append_only_rows
  BEFORE UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION fracas_events_append_only();

CREATE OR REPLACE TRIGGER events_append_only_truncate
  BEFORE TRUNCATE ON events
  FOR EACH STATEMENT EXECUTE FUNCTION fracas_events_append_only();


-- ---------------------------------------------------------------------------
-- Ordering for tailing readers
--
-- Positions come from a sequence, taken when a row is inserted, not when it
-- commits: transaction A may take position 10, B position 11, and B commit first.
-- A reader that saw 11 and checkpointed it would skip 10 forever.
--
-- So read_all returns only rows with  xact_id < pg_snapshot_xmin(pg_current_snapshot()):
-- every transaction id below the snapshot's xmin has finished. For that to cover
-- every LOWER POSITION too, each row takes its position inside a tiny critical
-- section (in the trigger events_append_checks below: a session advisory lock held for
-- microseconds, released before the row is stored, the index checks and the commit),
-- and stores as xact_id not just its own
-- transaction id but the highest id of any writer that went through the section
-- before it (kept in the sequence events_xact_mark, which is not transactional).
-- A row is thus shown only once every writer that may hold a lower position has
-- finished, whenever the writers got their transaction ids (an append may follow
-- other writes in its transaction).
--
-- Why not simply a global lock held to commit (LOCK TABLE / pg_advisory_xact_lock)?
-- It would serialise every append, index updates and WAL flush included, so writers
-- of different streams would wait on each other. Here they wait only for the
-- critical section. The price: a long writing transaction anywhere in the cluster
-- holds the xmin back and delays (never loses) what tailing readers see.
-- bench/RESULTS.md measures both. (While appends notified inside their transaction the
-- two were indistinguishable on 2 cores: PostgreSQL keeps notifications in commit
-- order with a database-wide lock held through commit, so notifying transactions
-- committed one at a time anyway. The server now notifies after commit.)
-- ---------------------------------------------------------------------------

CREATE SEQUENCE IF NOT EXISTS events_xact_mark AS bigint MINVALUE 0 START WITH 0;


-- ---------------------------------------------------------------------------
-- Every insert is checked and ordered by the database: trigger events_append_checks
--
-- Before each row is stored, in the order the rows of one INSERT come:
--   * its version must be the stream's current version + 1 (else serialization_failure,
--     'fracas_conflict: ...', DETAIL = the stream's actual version): versions stay
--     gapless from 1, and a writer on a stale head is refused;
--   * its prev_hash must be the hash of the stream's current last event (64 zeros for
--     version 1), else check_violation 'fracas_bad_chain': the chain cannot break;
--   * its position and its xact_id are set here, whatever the INSERT said (see
--     "Ordering for tailing readers").
-- A row-level BEFORE trigger's queries see the rows the same INSERT stored before
-- this one, so a batch (one INSERT, rows in version order) chains from the head. A
-- concurrent append at the same version passes the check too and then fails on
-- UNIQUE (stream, version): a unique_violation, which the server reads as a conflict.
--
-- The server appends with one INSERT ... RETURNING position (server/store/postgres.py)
-- and sends NOTIFY after commit. Being a trigger, the checks hold for any INSERT,
-- whoever sends it (fracas_app may INSERT). It is also cheaper: a plain INSERT with the
-- trigger took ~13 % less time than the same INSERT inside a PL/pgSQL function
-- (bench/RESULTS.md).
--
-- Critical section: nothing in it waits on another transaction, so it lasts
-- microseconds. The lock is session-level (it must not last until commit), so an
-- error or a cancel in it must release it. Assignments (v_done := ...) rather than
-- PERFORM or SELECT ... INTO: PL/pgSQL evaluates a simple expression without the
-- executor (bench/RESULTS.md: 18 us less per append for the PERFORMs, ~15 us for
-- reading the mark with pg_sequence_last_value instead of SELECT ... FROM
-- events_xact_mark). The mark is NULL until the first setval; greatest() then takes
-- the transaction id alone.
-- ---------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION fracas_events_before_insert() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  v_version bigint;
  v_hash    text;
  v_mark    bigint;
  v_done    text;  -- receives void results: see "Assignments" above
BEGIN
  SELECT e.version, e.hash INTO v_version, v_hash
    FROM events e
   WHERE e.stream = NEW.stream
   ORDER BY e.version DESC
   LIMIT 1;
  v_version := coalesce(v_version, 0);
  IF NEW.version <> v_version + 1 THEN
    RAISE EXCEPTION 'fracas_conflict: stream % is at version %, not %', NEW.stream, v_version,
      NEW.version - 1
      USING ERRCODE = 'serialization_failure', DETAIL = v_version::text;
  END IF;
  IF NEW.prev_hash <> coalesce(v_hash, repeat('0', 64)) THEN
    RAISE EXCEPTION 'fracas_bad_chain: event % of stream % does not chain to its head',
      NEW.version, NEW.stream
      USING ERRCODE = 'check_violation';
  END IF;

  v_done := pg_advisory_lock(7046012301);  -- 'fracas:position'
  BEGIN
    v_mark := setval('events_xact_mark',
                     greatest(pg_current_xact_id()::text::bigint,
                              pg_sequence_last_value('events_xact_mark')));
    NEW.position := nextval('events_position_seq');
    v_done := pg_advisory_unlock(7046012301);
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    PERFORM pg_advisory_unlock(7046012301);
    RAISE;
  END;
  NEW.xact_id := v_mark::text::xid8;
  RETURN NEW;
END;
$$;

CREATE OR REPLACE TRIGGER events_append_checks
  BEFORE INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION fracas_events_before_insert();

-- ---------------------------------------------------------------------------
-- Side tables (mutable state that is not history)
-- ---------------------------------------------------------------------------

-- The outcome of a command sent with an Idempotency-Key, per caller.
--
-- Invariants:
--   * a key belongs to its caller: the primary key is (stream, caller, key_hash), where
--     caller is the tokens table's token_hash of the token that sent it. Another
--     caller's identical key is another key.
--   * one key, one outcome: an applied command's row is inserted in the transaction
--     that appends its events (status 200); a refusal's row is inserted with
--     ON CONFLICT DO NOTHING (status 4xx). Whichever commits first is the outcome.
--   * body_hash is the sha256 of the command as the server decoded it: the same key
--     with another body is refused (422 idempotency_mismatch).
--   * outcome holds no secret: for 200 the versions the command appended (the events
--     are re-read and filtered for the caller at every replay) and the new combatant's
--     id, never a player token; for a refusal the error body.
--   * the raw key is not stored (key_hash = sha256 of it) and never published.

CREATE TABLE IF NOT EXISTS command_keys (
  stream     text        NOT NULL,
  caller     text        NOT NULL CHECK (caller ~ '^[0-9a-f]{64}$'),
  key_hash   text        NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  body_hash  text        NOT NULL CHECK (body_hash ~ '^[0-9a-f]{64}$'),
  status     smallint    NOT NULL CHECK (status = 200 OR status BETWEEN 400 AND 499),
  outcome    jsonb       NOT NULL CHECK (jsonb_typeof(outcome) = 'object'),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream, caller, key_hash)
);

-- Bearer tokens, stored as hashes only.
-- `scope` is the id of what the token opens: an encounter, or a War (campaign ids are
-- uuids from the same space, and a token checked for one never opens the other, since
-- the ids differ). It is the id, not the stream name (`encounter-<id>`, `campaign-<id>`).
-- Each token has a short public id (random, not derived from the secret) that the GM
-- lists and revokes by. A revoked token opens nothing (revoked_at is set, the row is
-- kept). last_used is refreshed at most once a minute per token, so reads stay reads.
CREATE TABLE IF NOT EXISTS tokens (
  token_hash text        PRIMARY KEY,
  scope      uuid        NOT NULL,  -- the encounter or War id (see above)
  role       text        NOT NULL CHECK (role IN ('gm', 'player', 'spectator')),
  combatants text[]      NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  id         text        NOT NULL DEFAULT left(replace(gen_random_uuid()::text, '-', ''), 16),
  revoked_at timestamptz,
  last_used  timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS tokens_id_key ON tokens (id);
CREATE INDEX IF NOT EXISTS tokens_scope_idx ON tokens (scope);

-- Dice seeds stay out of the events until they are revealed. Rows are only inserted
-- (a seed is committed) and read (to roll, and to reveal at close): never updated.
CREATE TABLE IF NOT EXISTS dice_seeds (
  encounter uuid    NOT NULL,
  seed_id   text    NOT NULL,
  seed      bytea   NOT NULL,
  PRIMARY KEY (encounter, seed_id)
);
-- Whether a seed is revealed is a fact of the stream (its seed_revealed event), not a
-- column here.


-- ---------------------------------------------------------------------------
-- Webhooks (CONTRACT section 8): configuration and an outbox, not events
--
-- One webhook per encounter. Its URL and signing secret live only here (never in an
-- event, never in a log line). `checkpoint` is the last version of the encounter's
-- stream the webhook subscriber has turned into deliveries; the subscriber advances it
-- in the same transaction as it inserts them, holding the webhook row with
-- FOR UPDATE SKIP LOCKED, so two instances never scan one webhook at once.
--
-- Invariants of webhook_deliveries:
--   * at most one delivery per (webhook, version, kind): UNIQUE, inserted with
--     ON CONFLICT DO NOTHING, so a re-scan after a crash adds nothing twice.
--   * a pending row is due at next_at. A worker claims due rows with FOR UPDATE SKIP
--     LOCKED and moves next_at past its lease in the same statement, so exactly one
--     instance sends each attempt; a crashed worker's lease runs out and another
--     instance takes the row up. Delivery is at least once: receivers dedupe on id
--     (the X-Fracas-Delivery header).
--   * one webhook's deliveries go in order, one at a time: a worker claims only the
--     webhook's head (its pending row first in (version, kind) order, a `test` last of
--     its version), so a row waiting for its retry holds the rows after it until it is
--     delivered or `failed` (the attempts are bounded).
--   * body holds the exact bytes sent (no token in it); the signature is computed at
--     send time from the webhook's secret.
-- ---------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS webhooks (
  id         text        PRIMARY KEY,
  encounter  uuid        NOT NULL UNIQUE,
  url        text        NOT NULL,
  format     text        NOT NULL CHECK (format IN ('json', 'discord')),
  kinds      text[]      NOT NULL,
  lang       text        NOT NULL DEFAULT 'en' CHECK (lang IN ('en', 'fr')),
  base       text        NOT NULL DEFAULT '',  -- the origin board links start with
  secret     text        NOT NULL,
  checkpoint bigint      NOT NULL DEFAULT 0 CHECK (checkpoint >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id           text        PRIMARY KEY,  -- X-Fracas-Delivery
  webhook      text        NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  version      bigint      NOT NULL,
  kind         text        NOT NULL,
  body         text        NOT NULL,
  state        text        NOT NULL DEFAULT 'pending'
                           CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts     integer     NOT NULL DEFAULT 0,
  next_at      timestamptz NOT NULL DEFAULT now(),
  last_status  integer,               -- the receiver's HTTP status, if it answered
  last_error   text,                  -- why the last attempt failed (never the URL)
  created_at   timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  CONSTRAINT webhook_deliveries_event_key UNIQUE (webhook, version, kind)
);

-- Workers look for due pending rows only, and for each webhook's head.
CREATE INDEX IF NOT EXISTS webhook_deliveries_due_idx
  ON webhook_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_queue_idx
  ON webhook_deliveries (webhook, version) WHERE state = 'pending';


-- ---------------------------------------------------------------------------
-- Privileges
--
-- fracas_app is the server's role (NOLOGIN: a login role is granted it, or a
-- superuser does SET ROLE). On events it may only read and insert; it may not
-- update, delete or truncate even with the trigger gone. Roles are cluster-wide,
-- so two databases installing at once may race to create it: that is tolerated.
-- A login without CREATEROLE skips the role with a warning and grants nothing.
-- ---------------------------------------------------------------------------

DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'fracas_app') THEN
    BEGIN
      CREATE ROLE fracas_app NOLOGIN;
    EXCEPTION
      WHEN duplicate_object OR unique_violation THEN NULL;
      WHEN insufficient_privilege THEN
        RAISE WARNING 'fracas: role fracas_app not created (%), grants skipped', SQLERRM;
        RETURN;
    END;
  END IF;

  REVOKE ALL ON events FROM PUBLIC, fracas_app;
  GRANT SELECT, INSERT ON events TO fracas_app;
  GRANT USAGE ON SEQUENCE events_position_seq TO fracas_app;
  REVOKE ALL ON SEQUENCE events_xact_mark FROM PUBLIC, fracas_app;
  GRANT SELECT, UPDATE ON SEQUENCE events_xact_mark TO fracas_app;

  REVOKE ALL ON command_keys, tokens, dice_seeds FROM PUBLIC, fracas_app;
  GRANT SELECT, INSERT ON command_keys, dice_seeds TO fracas_app;
  GRANT SELECT, INSERT, UPDATE ON tokens TO fracas_app;  -- last_used, revoked_at

  REVOKE ALL ON webhooks, webhook_deliveries FROM PUBLIC, fracas_app;
  GRANT SELECT, INSERT, UPDATE, DELETE ON webhooks, webhook_deliveries TO fracas_app;
END;
$$;

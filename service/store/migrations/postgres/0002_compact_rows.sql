-- Compact rows: a finished game in at most 600 bytes of heap and indexes.
--
-- game_id is the 16 hex digits of the id as a bigint, top bit flipped so that
-- numbers sort as the digits did (service/store/archive_keys.py); a client
-- app's id is its 6 bytes after a 0 byte, any other id its UTF-8 after a 1
-- byte; variant and status are smallints; digest is NULL when the game's
-- bytes give it (service/store/archive_rows.py). The columns go widest first, so no byte of
-- a row is padding, and eight columns keep the null bitmap within the 24 bytes
-- of a row's header.
--
-- The table is made anew, not altered: an altered table keeps its dropped
-- columns (and their places in every row's null bitmap) for ever. Each month's
-- partition is made again under its name, its rows copied, the old table
-- dropped, all in this one transaction. A month detached before this migration
-- keeps the old columns: convert its rows before attaching it again. A game id
-- that is not 16 hex digits (the service never made one) stops the migration,
-- and the archive stays as it was.
--
-- The listing's index is ascending and walked backwards for newest first: a
-- client's games arrive in the order of their creation, so each lands at the
-- end of its client's run of the index, where a descending index took each at
-- the front and left half-empty pages behind. It holds no game_id: games of a
-- client created in the same ms are few, and sorted by id as they are read
-- (an incremental sort), where the id took a quarter of every entry.
--
-- There is no primary key. A partitioned table's unique keys must hold the
-- partition key, so the one it had, (game_id, created_ms), never kept a game
-- once (put does, under a lock on the id, looking in every month first); it
-- only served get(game_id), which an index of the id alone serves as well in
-- two thirds of the bytes.
ALTER TABLE games RENAME TO games_text_keys;

-- The old table's partitions and the indexes of it and of them step aside for the
-- new ones' names.
DO $$
DECLARE
    rel record;
BEGIN
    FOR rel IN
        SELECT c.relname, c.relkind
        FROM pg_partition_tree('games_text_keys') t
        JOIN pg_class c ON c.oid = t.relid
        WHERE t.level > 0
        UNION ALL
        SELECT ci.relname, ci.relkind
        FROM pg_partition_tree('games_text_keys') t
        JOIN pg_index x ON x.indrelid = t.relid
        JOIN pg_class ci ON ci.oid = x.indexrelid
    LOOP
        EXECUTE format(
            CASE WHEN rel.relkind IN ('i', 'I') THEN 'ALTER INDEX %I RENAME TO %I'
                 ELSE 'ALTER TABLE %I RENAME TO %I' END,
            rel.relname, rel.relname || '_text_keys'
        );
    END LOOP;
END $$;

CREATE TABLE games (
    game_id    bigint   NOT NULL,
    created_ms bigint   NOT NULL,
    ended_ms   bigint   NOT NULL,
    variant    smallint NOT NULL,
    status     smallint NOT NULL,
    client_id  bytea,
    data       bytea    NOT NULL,
    digest     bytea
) PARTITION BY RANGE (created_ms);

CREATE INDEX games_by_id ON games (game_id);
CREATE INDEX games_by_client ON games (client_id, created_ms);

DO $$
DECLARE
    part record;
BEGIN
    FOR part IN
        SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) AS bounds
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'games_text_keys'::regclass
    LOOP
        EXECUTE format(
            'CREATE TABLE %I PARTITION OF games %s',
            left(part.relname, length(part.relname) - length('_text_keys')),
            part.bounds
        );
    END LOOP;
END $$;

INSERT INTO games (game_id, created_ms, ended_ms, variant, status, client_id, data, digest)
SELECT (('x' || game_id)::bit(64) # x'8000000000000000')::bigint,
       created_ms,
       ended_ms,
       CASE variant WHEN 'head' THEN 0 WHEN 'tracked' THEN 1 END,
       CASE status WHEN 'finished' THEN 0 WHEN 'aborted' THEN 1
                   WHEN 'waiting' THEN 2 WHEN 'active' THEN 3 END,
       CASE WHEN client_id ~ '^cl_[0-9a-f]{12}$'
            THEN '\x00'::bytea || decode(substr(client_id, 4), 'hex')
            ELSE '\x01'::bytea || convert_to(client_id, 'UTF8') END,
       data,
       digest
FROM games_text_keys
ORDER BY created_ms, game_id;

DROP TABLE games_text_keys;

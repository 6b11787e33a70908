-- Compact rows: a finished game in at most 600 bytes of table and indexes.
--
-- game_id is the 16 hex digits of the id as a 64-bit integer, top bit flipped
-- so that numbers sort as the digits did (service/store/archive_keys.py);
-- a client app's id is its 6 bytes after a 0 byte, any other id its UTF-8
-- after a 1 byte; variant and status are small numbers; digest is NULL when the game's bytes
-- give it (service/store/archive_rows.py). The old rows are copied over with
-- the functions service/store/archive_sqlite.py adds to its connection; an
-- old row's word the tables do not know is kept as it was, and reads back.
--
-- The listing's index is ascending and walked backwards for newest first: the
-- games of a client arrive in the order of their creation, so each one lands
-- at the end of its client's run of the index, which stays full, where a
-- descending index took each at the front and left half-empty pages behind.
CREATE TABLE games_compact (
    game_id    INTEGER NOT NULL UNIQUE,
    client_id  BLOB,
    variant    INTEGER NOT NULL,
    status     INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    ended_ms   INTEGER NOT NULL,
    data       BLOB    NOT NULL,
    digest     BLOB
);
INSERT INTO games_compact (game_id, client_id, variant, status, created_ms, ended_ms, data, digest)
SELECT archive_game_key(game_id), archive_client_key(client_id), archive_variant_code(variant),
       archive_status_code(status), created_ms, ended_ms, data, digest
FROM games ORDER BY created_ms, game_id;
DROP TABLE games;
ALTER TABLE games_compact RENAME TO games;
CREATE INDEX games_by_client ON games (client_id, created_ms, game_id);

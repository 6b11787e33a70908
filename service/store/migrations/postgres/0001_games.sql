-- The archived games: one row each, written once (service/store/archive.py).
--
-- Partitioned by month of creation (created_ms, ms since the epoch, UTC): the
-- archive only grows, and almost every read is of recent games, so a month is
-- the unit it is kept, backed up and let go in. An old month's partition can be
-- detached (ALTER TABLE games DETACH PARTITION ...), dumped, moved to cheaper
-- storage or dropped without touching the rest, and a vacuum or an index
-- rebuild works on one month at a time. Listing newest first reads the newest
-- partitions first and stops at its page.
--
-- Partitions are made on demand by the first put of a month
-- (service/store/archive_postgres.py: games_yYYYYmMM FOR VALUES FROM the
-- month's first ms TO the next month's); there is no DEFAULT partition, so a
-- month's partition can always be made, or attached again, without moving rows.
--
-- A partitioned table's unique keys must hold the partition key, so the primary
-- key is (game_id, created_ms): it does not stop one game_id under two creation
-- times. A game is kept once by put itself, which writes under a lock on the
-- game's id and looks for the id first.
--
-- game_id and client_id compare by their bytes (COLLATE "C"), as SQLite's do:
-- the listing's order and its cursors are the same on both back ends, and do
-- not depend on the database's locale.
CREATE TABLE games (
    game_id    text COLLATE "C" NOT NULL,
    client_id  text COLLATE "C",
    variant    text   NOT NULL,
    status     text   NOT NULL,
    created_ms bigint NOT NULL,
    ended_ms   bigint NOT NULL,
    data       bytea  NOT NULL,
    digest     bytea  NOT NULL,
    PRIMARY KEY (game_id, created_ms)
) PARTITION BY RANGE (created_ms);

-- get(game_id) has no creation time to prune months by: it probes the primary
-- key's index, which leads with game_id, once in each month's partition.

-- A client's games, newest first: listing and export walk this index by keyset.
CREATE INDEX games_by_client ON games (client_id, created_ms DESC, game_id DESC);

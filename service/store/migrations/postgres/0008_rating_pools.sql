-- Ratings by pool (service/game/pools.py): a player's rating in each pool, a variant at
-- a speed, that it has played rated games in; a pool without a row is the start rating.
-- The one rating each player had before pools is its rating in the default pool,
-- head-untimed (the pool of a game made with no variant and no clock), kept whole. A
-- player is on a pool's leaderboard (on_board) once it has the rated games the board
-- asks for and its rating is not provisional (a deviation of at most 110).
-- Ids compare by their bytes (COLLATE "C"), as SQLite's do.
CREATE TABLE player_ratings (
    player_id  text COLLATE "C" NOT NULL,
    app        text COLLATE "C" NOT NULL,
    pool       text COLLATE "C" NOT NULL,
    rating     double precision NOT NULL,
    deviation  double precision NOT NULL,
    volatility double precision NOT NULL,
    games      bigint NOT NULL,
    on_board   integer NOT NULL DEFAULT 0,
    PRIMARY KEY (player_id, pool)
);
-- A pool's leaderboard, best first.
CREATE INDEX player_ratings_board ON player_ratings (app, pool, rating DESC, player_id DESC)
    WHERE on_board = 1;
INSERT INTO player_ratings (player_id, app, pool, rating, deviation, volatility, games, on_board)
    SELECT player_id, app, 'head-untimed', rating, deviation, volatility, games,
           CASE WHEN on_board = 1 AND deviation <= 110 THEN 1 ELSE 0 END
    FROM players;
-- Each rating change names its pool; one written before pools moved the one rating,
-- now the default pool's. A pool's history is walked by keyset (at_ms, game_id).
ALTER TABLE rating_changes ADD COLUMN pool text COLLATE "C" NOT NULL DEFAULT 'head-untimed';
CREATE INDEX rating_changes_by_pool ON rating_changes (player_id, pool, at_ms DESC, game_id DESC);
-- The rating lives in player_ratings from now on: the players' own columns go.
DROP INDEX players_board;
ALTER TABLE players DROP COLUMN rating;
ALTER TABLE players DROP COLUMN deviation;
ALTER TABLE players DROP COLUMN volatility;
ALTER TABLE players DROP COLUMN games;
ALTER TABLE players DROP COLUMN on_board;

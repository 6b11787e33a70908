-- Games' analyses (service/store/analysis_records.py): one row per analysed (deal, seat)
-- part of a game, "<deal>:<seat>", its decision records as JSON. A part is analysed only
-- once it can no longer change, so a row, once written, is final.
CREATE TABLE game_analyses (
    game_id  TEXT NOT NULL,
    part     TEXT NOT NULL,
    records  TEXT NOT NULL,
    PRIMARY KEY (game_id, part)
) WITHOUT ROWID;

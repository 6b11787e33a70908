-- Tournaments (service/store/tournament_records.py): a tournament, its entries, its
-- rounds, each round's boards (the games) and its standings, kept for good.
-- A round's row is its one claim: whoever inserts it pairs the round; its seed names
-- the round's games, so pairing again after a crash makes the same games.
CREATE TABLE tournaments (
    tournament_id text COLLATE "C" PRIMARY KEY,
    app           text COLLATE "C" NOT NULL,
    kind          text COLLATE "C" NOT NULL,
    name          text COLLATE "C" NOT NULL,
    variant       text COLLATE "C" NOT NULL,
    clock         text,
    rounds        bigint NOT NULL,
    starts_ms     bigint NOT NULL,
    created_ms    bigint NOT NULL,
    status        text COLLATE "C" NOT NULL,
    round         bigint NOT NULL DEFAULT 0
);
CREATE INDEX tournaments_by_app ON tournaments (app, starts_ms DESC, tournament_id DESC);
-- Who entered: withdrawn_ms set once they left (they keep their results).
CREATE TABLE tournament_entries (
    tournament_id text COLLATE "C" NOT NULL,
    player_id     text COLLATE "C" NOT NULL,
    rating        double precision NOT NULL,
    joined_ms     bigint NOT NULL,
    withdrawn_ms  bigint,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_entries_by_player ON tournament_entries (player_id, joined_ms DESC, tournament_id DESC);
CREATE TABLE tournament_rounds (
    tournament_id text COLLATE "C" NOT NULL,
    round         bigint NOT NULL,
    seed          text COLLATE "C" NOT NULL,
    paired_ms     bigint NOT NULL,
    bye           text,
    PRIMARY KEY (tournament_id, round)
);
CREATE TABLE tournament_boards (
    tournament_id text COLLATE "C" NOT NULL,
    round         bigint NOT NULL,
    board         bigint NOT NULL,
    game_id       text COLLATE "C" NOT NULL UNIQUE,
    dealer        text COLLATE "C" NOT NULL,
    forehand      text COLLATE "C" NOT NULL,
    winner        text,
    PRIMARY KEY (tournament_id, round, board)
);
-- The standings as last computed from the boards' results; always their recomputation.
CREATE TABLE tournament_standings (
    tournament_id    text COLLATE "C" NOT NULL,
    player_id        text COLLATE "C" NOT NULL,
    rank             bigint NOT NULL,
    points           bigint NOT NULL,
    buchholz         bigint NOT NULL,
    sonneborn_berger bigint NOT NULL,
    wins             bigint NOT NULL,
    games            bigint NOT NULL,
    byes             bigint NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE INDEX tournament_standings_by_rank ON tournament_standings (tournament_id, rank);

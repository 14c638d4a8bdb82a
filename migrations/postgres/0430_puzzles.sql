-- Puzzles (issue 49): the key the server signs the puzzles it hands out with (one row, made at
-- the first start, shared by every instance), every identified player's first attempt at each
-- puzzle with the ratings after it, and the current puzzle ratings of players and puzzles.
-- The puzzles themselves are data compiled into the binary (puzzles/shipped.jsonl).
CREATE TABLE puzzle_key (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    key TEXT NOT NULL                                      -- 64 hex digits
);

CREATE TABLE puzzle_attempts (
    seq                BIGSERIAL PRIMARY KEY,
    player             TEXT NOT NULL REFERENCES players (id),
    puzzle             TEXT NOT NULL,
    answer             BIGINT NOT NULL,                    -- the square of the piece moved
    solved             BIGINT NOT NULL,                    -- 1 or 0
    at                 BIGINT NOT NULL,                    -- unix ms
    rating             DOUBLE PRECISION NOT NULL,          -- the player's puzzle rating after it
    deviation          DOUBLE PRECISION NOT NULL,
    volatility         DOUBLE PRECISION NOT NULL,
    puzzle_rating      DOUBLE PRECISION NOT NULL,          -- the puzzle's after it
    puzzle_deviation   DOUBLE PRECISION NOT NULL,
    puzzle_volatility  DOUBLE PRECISION NOT NULL,
    UNIQUE (player, puzzle)
);

CREATE TABLE player_puzzle_ratings (
    player     TEXT PRIMARY KEY REFERENCES players (id),
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    attempts   BIGINT NOT NULL,
    solved     BIGINT NOT NULL
);

CREATE TABLE puzzle_ratings (
    puzzle     TEXT PRIMARY KEY,
    rating     DOUBLE PRECISION NOT NULL,
    deviation  DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    attempts   BIGINT NOT NULL,
    solved     BIGINT NOT NULL
);

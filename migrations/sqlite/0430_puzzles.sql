-- Puzzles (issue 49): the key the server signs the puzzles it hands out with (one row, made at
-- the first start, shared by every instance), every identified player's first attempt at each
-- puzzle with the ratings after it, and the current puzzle ratings of players and puzzles.
-- The puzzles themselves are data compiled into the binary (puzzles/shipped.jsonl).
CREATE TABLE puzzle_key (
    id  INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    key TEXT NOT NULL                             -- 64 hex digits
) STRICT;

CREATE TABLE puzzle_attempts (
    seq                INTEGER PRIMARY KEY AUTOINCREMENT,
    player             TEXT NOT NULL REFERENCES players (id),
    puzzle             TEXT NOT NULL,
    answer             INTEGER NOT NULL,          -- the square of the piece moved
    solved             INTEGER NOT NULL,          -- 1 or 0
    at                 INTEGER NOT NULL,          -- unix ms
    rating             REAL NOT NULL,             -- the player's puzzle rating after it
    deviation          REAL NOT NULL,
    volatility         REAL NOT NULL,
    puzzle_rating      REAL NOT NULL,             -- the puzzle's after it
    puzzle_deviation   REAL NOT NULL,
    puzzle_volatility  REAL NOT NULL,
    UNIQUE (player, puzzle)
) STRICT;

CREATE TABLE player_puzzle_ratings (
    player     TEXT PRIMARY KEY NOT NULL REFERENCES players (id),
    rating     REAL NOT NULL,
    deviation  REAL NOT NULL,
    volatility REAL NOT NULL,
    attempts   INTEGER NOT NULL,
    solved     INTEGER NOT NULL
) STRICT;

CREATE TABLE puzzle_ratings (
    puzzle     TEXT PRIMARY KEY NOT NULL,
    rating     REAL NOT NULL,
    deviation  REAL NOT NULL,
    volatility REAL NOT NULL,
    attempts   INTEGER NOT NULL,
    solved     INTEGER NOT NULL
) STRICT;

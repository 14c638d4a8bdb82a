-- Players who come back (issue 29): an identity without a password, a display name, a
-- Glicko-2 rating and its history. Kept by the players' own store (src/players/store).
CREATE TABLE players (
    id          TEXT PRIMARY KEY NOT NULL,         -- public: 16 hex digits
    secret_hash BLOB UNIQUE,                   -- SHA-256 of the cookie's secret; NULL once deleted
    name        TEXT,                        -- as shown, NFC; NULL: unnamed (a generated name)
    name_key    TEXT UNIQUE,                 -- NFC of the lowercased name: unique ignoring case
    named_at    INTEGER,                          -- unix ms of the last (re)naming: once a week
    created_at  INTEGER NOT NULL,
    creator     TEXT NOT NULL,               -- the client address that created it (quota)
    deleted_at  INTEGER,                          -- games stay, shown as a deleted player
    rating      REAL NOT NULL,                 -- Glicko-2, as of rated_at
    deviation   REAL NOT NULL,
    volatility  REAL NOT NULL,
    rated_at    INTEGER,                          -- the last rated game's end; NULL: never rated
    wins        INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX players_board ON players (rated_at, rating);

-- One live transfer code per player, hashed; used once, valid 10 minutes.
CREATE TABLE transfer_codes (
    code_hash  BLOB PRIMARY KEY NOT NULL,
    player     TEXT NOT NULL UNIQUE REFERENCES players (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
) STRICT;

-- Who sits where in a room, and whether its game is rated (chosen at creation).
CREATE TABLE room_players (
    room  TEXT PRIMARY KEY NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    rated INTEGER NOT NULL,                       -- 1: rated, 0: casual
    black TEXT REFERENCES players (id),
    white TEXT REFERENCES players (id)
) STRICT;

-- Every rated game, numbered in commit order: `senet ratings verify` replays them so.
CREATE TABLE rated_games (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    room  TEXT NOT NULL UNIQUE,
    black TEXT NOT NULL REFERENCES players (id),
    white TEXT NOT NULL REFERENCES players (id),
    score REAL NOT NULL,                       -- black's points: 1, 0.5 or 0
    at    INTEGER NOT NULL                        -- the game-over event's time, unix ms
) STRICT;

CREATE INDEX rated_games_pair ON rated_games (black, white, at);

-- Each rated game's change to each of its two players.
CREATE TABLE rating_changes (
    seq              INTEGER NOT NULL REFERENCES rated_games (seq),
    player           TEXT NOT NULL REFERENCES players (id),
    rating_before    REAL NOT NULL,            -- as of the game (after idle days' growth)
    deviation_before REAL NOT NULL,
    volatility_before REAL NOT NULL,
    rating           REAL NOT NULL,
    deviation        REAL NOT NULL,
    volatility       REAL NOT NULL,
    PRIMARY KEY (player, seq)
) STRICT;

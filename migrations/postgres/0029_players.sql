-- Players who come back (issue 29): an identity without a password, a display name, a
-- Glicko-2 rating and its history. Kept by the players' own store (src/players/store).
CREATE TABLE players (
    id          TEXT PRIMARY KEY,         -- public: 16 hex digits
    secret_hash BYTEA UNIQUE,                   -- SHA-256 of the cookie's secret; NULL once deleted
    name        TEXT,                        -- as shown, NFC; NULL: unnamed (a generated name)
    name_key    TEXT UNIQUE,                 -- NFC of the lowercased name: unique ignoring case
    named_at    BIGINT,                          -- unix ms of the last (re)naming: once a week
    created_at  BIGINT NOT NULL,
    creator     TEXT NOT NULL,               -- the client address that created it (quota)
    deleted_at  BIGINT,                          -- games stay, shown as a deleted player
    rating      DOUBLE PRECISION NOT NULL,                 -- Glicko-2, as of rated_at
    deviation   DOUBLE PRECISION NOT NULL,
    volatility  DOUBLE PRECISION NOT NULL,
    rated_at    BIGINT,                          -- the last rated game's end; NULL: never rated
    wins        BIGINT NOT NULL DEFAULT 0,
    losses      BIGINT NOT NULL DEFAULT 0,
    draws       BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX players_board ON players (rated_at, rating);

-- One live transfer code per player, hashed; used once, valid 10 minutes.
CREATE TABLE transfer_codes (
    code_hash  BYTEA PRIMARY KEY,
    player     TEXT NOT NULL UNIQUE REFERENCES players (id) ON DELETE CASCADE,
    expires_at BIGINT NOT NULL
);

-- Who sits where in a room, and whether its game is rated (chosen at creation).
CREATE TABLE room_players (
    room  TEXT PRIMARY KEY REFERENCES rooms (id) ON DELETE CASCADE,
    rated BIGINT NOT NULL,                       -- 1: rated, 0: casual
    black TEXT REFERENCES players (id),
    white TEXT REFERENCES players (id)
);

-- Every rated game, numbered in commit order: `senet ratings verify` replays them so.
CREATE TABLE rated_games (
    seq   BIGSERIAL PRIMARY KEY,
    room  TEXT NOT NULL UNIQUE,
    black TEXT NOT NULL REFERENCES players (id),
    white TEXT NOT NULL REFERENCES players (id),
    score DOUBLE PRECISION NOT NULL,                       -- black's points: 1, 0.5 or 0
    at    BIGINT NOT NULL                        -- the game-over event's time, unix ms
);

CREATE INDEX rated_games_pair ON rated_games (black, white, at);

-- Each rated game's change to each of its two players.
CREATE TABLE rating_changes (
    seq              BIGINT NOT NULL REFERENCES rated_games (seq),
    player           TEXT NOT NULL REFERENCES players (id),
    rating_before    DOUBLE PRECISION NOT NULL,            -- as of the game (after idle days' growth)
    deviation_before DOUBLE PRECISION NOT NULL,
    volatility_before DOUBLE PRECISION NOT NULL,
    rating           DOUBLE PRECISION NOT NULL,
    deviation        DOUBLE PRECISION NOT NULL,
    volatility       DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player, seq)
);

-- Rooms and their append-only event log. A room's state is the fold of its
-- events; the rooms row holds only what is fixed at creation or by joining.
CREATE TABLE rooms (
    id                TEXT PRIMARY KEY NOT NULL,
    mode              TEXT NOT NULL,
    seed              BLOB NOT NULL,        -- 32 bytes, secret until the game ends
    created_at        INTEGER NOT NULL,     -- unix ms
    black_token_hash  BLOB,                 -- SHA-256 of the seat token; NULL = seat free
    black_client_seed TEXT,
    white_token_hash  BLOB,
    white_client_seed TEXT
) STRICT;

-- (room, v) orders a room: appending a version that exists fails, which is
-- how two writers of one room find out about each other.
CREATE TABLE events (
    room TEXT NOT NULL REFERENCES rooms (id),
    v    INTEGER NOT NULL,
    at   INTEGER NOT NULL,                  -- unix ms
    kind TEXT NOT NULL,                     -- the wire "t"
    data TEXT NOT NULL,                     -- the wire "d" as JSON, without "v"
    PRIMARY KEY (room, v)
) STRICT, WITHOUT ROWID;

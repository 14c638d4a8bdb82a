-- The same tables as migrations/sqlite/0001, in PostgreSQL's types: rooms and
-- their append-only event log. A room's state is the fold of its events; the
-- rooms row holds only what is fixed at creation or by joining.
CREATE TABLE rooms (
    id                TEXT PRIMARY KEY,
    mode              TEXT NOT NULL,
    seed              BYTEA NOT NULL,       -- 32 bytes, secret until the game ends
    created_at        BIGINT NOT NULL,      -- unix ms
    black_token_hash  BYTEA,                -- SHA-256 of the seat token; NULL = seat free
    black_client_seed TEXT,
    white_token_hash  BYTEA,
    white_client_seed TEXT
);

-- (room, v) orders a room: appending a version that exists fails, which is
-- how two writers of one room (on one instance or several) find out about
-- each other.
CREATE TABLE events (
    room TEXT NOT NULL REFERENCES rooms (id),
    v    BIGINT NOT NULL,
    at   BIGINT NOT NULL,                   -- unix ms
    kind TEXT NOT NULL,                     -- the wire "t"
    data TEXT NOT NULL,                     -- the wire "d" as JSON, without "v"
    PRIMARY KEY (room, v)
);

-- The lobby (issue 15): open games listed for strangers ("seeks") and the games started from
-- them. A seek is a room as created by link plus this row; taking it sets taken_at, and the row
-- then lists the game in progress until the game ends. Rooms made by link have no row: private.
CREATE TABLE seeks (
    room       TEXT PRIMARY KEY NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    side       TEXT NOT NULL,               -- what the creator asked for: black, white, random
    clock_initial   INTEGER,                -- the room's time control; both NULL when untimed
    clock_increment INTEGER,
    created_at INTEGER NOT NULL,            -- unix ms
    expires_at INTEGER NOT NULL,            -- unix ms; renewed while its creator's lobby socket is open
    owner      TEXT NOT NULL,               -- the client address that posted it (per-address cap)
    visitor    TEXT NOT NULL,               -- who posted it, so quick pairing skips one's own
    taken_at   INTEGER                      -- unix ms; NULL while open
) STRICT;

CREATE INDEX seeks_open ON seeks (taken_at, created_at);

-- Correspondence games (issue 46): each one being played, its side to move and when that side's
-- days run out, written in the commit of the events that change them. A correspondence room is
-- not held in memory while idle, so the server finds the games whose time ran out here (by
-- due_at) and loads them to decide the timeout; the "your turn" list reads it by side.
CREATE TABLE correspondence_turns (
    room   TEXT PRIMARY KEY NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    side   TEXT NOT NULL,
    due_at INTEGER NOT NULL
) STRICT;
CREATE INDEX correspondence_turns_due ON correspondence_turns (due_at);

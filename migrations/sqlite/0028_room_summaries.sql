-- A room's summary (GET /api/rooms/{id}, the lobby's games) as of version v of its log, written
-- in the same commit as the events that change it, so that reading it never replays the log
-- (issue 28). data is the summary as JSON, without the live spectator count. Rooms older than
-- this migration get theirs when a server starts: it replays each of their logs once.
CREATE TABLE room_summaries (
    room TEXT PRIMARY KEY NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    v    INTEGER NOT NULL,
    data TEXT NOT NULL
) STRICT;

-- The engine's analysis of a finished game (issue 14), computed once on the
-- first request and kept: it is a pure function of the room's event log,
-- which no longer changes once the game is over.
CREATE TABLE analyses (
    room TEXT PRIMARY KEY NOT NULL REFERENCES rooms (id),
    data TEXT NOT NULL                      -- the analysis as JSON
) STRICT;

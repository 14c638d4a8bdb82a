-- Tournaments run by themselves (issue 45): the status the summary holds, as a column the
-- directors and the lists select by (NULL in rows written before it: read as open), and each
-- tournament game's seat tokens, kept for the player the seat is for (who fetches it with their
-- player cookie: the director makes the room before anyone is there to be handed a token).
-- Expand only: a nullable column and a new table.
ALTER TABLE tournaments ADD COLUMN status TEXT;
CREATE INDEX tournaments_by_status ON tournaments (status, starts_at);

CREATE TABLE tournament_seats (
    room   TEXT NOT NULL,
    player TEXT NOT NULL,   -- the public player id
    token  TEXT NOT NULL,
    PRIMARY KEY (room, player)
) STRICT;

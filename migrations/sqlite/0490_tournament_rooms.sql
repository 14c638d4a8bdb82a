-- A tournament game's room knows its tournament (issue 45, item 6: "each game's room links
-- back"), for anyone who opens the room, not only a browser that came from the tournament's
-- page. The director writes it with the game's seats. Expand only: a nullable column. Seats
-- kept by a director of an earlier release have none, and their rooms show no link back.
ALTER TABLE tournament_seats ADD COLUMN tournament TEXT;

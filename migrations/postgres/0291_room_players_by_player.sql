-- A player's games (issue 29): the player page's recent games look rooms up by either seat
-- (`WHERE black = ? OR white = ?`); without these that query reads every room_players row.
CREATE INDEX room_players_black ON room_players (black);
CREATE INDEX room_players_white ON room_players (white);

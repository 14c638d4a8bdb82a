-- Which rating parameters (`players::rating::Parameters::name`) the stored ratings were
-- computed with. Every database before this migration was rated with lichess's values; when the
-- server's set differs, opening the store re-rates every past rated game in order, once, and
-- logs it in `audit` (src/players/store/rerate.rs), so `senet ratings verify` still agrees.
CREATE TABLE rating_parameters (
    id    INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    name  TEXT NOT NULL,
    since INTEGER NOT NULL                        -- unix ms of the last re-rating; 0: never
) STRICT;

INSERT INTO rating_parameters (id, name, since) VALUES (1, 'lichess', 0);

-- The same columns as migrations/sqlite/0002: a room's time control (Fischer, in seconds);
-- both NULL for an untimed game.
ALTER TABLE rooms ADD COLUMN clock_initial BIGINT;
ALTER TABLE rooms ADD COLUMN clock_increment BIGINT;

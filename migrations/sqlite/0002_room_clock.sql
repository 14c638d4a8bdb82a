-- A room's time control (Fischer, in seconds); both NULL for an untimed game.
ALTER TABLE rooms ADD COLUMN clock_initial INTEGER;
ALTER TABLE rooms ADD COLUMN clock_increment INTEGER;

-- Pairing by strength (issue 29, item 5): who posted a seek, whether it is rated, the poster's
-- rating when posting (quick pairing prefers the nearest) and the range of ratings the poster
-- accepts. Numbered 0290, issue 29's second file: sqlx wants a number, and 0029 is taken.
ALTER TABLE seeks ADD COLUMN player TEXT;           -- the poster's player id; NULL: anonymous
ALTER TABLE seeks ADD COLUMN rated BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE seeks ADD COLUMN rating BIGINT;          -- the poster's rating, rounded; NULL: anonymous
ALTER TABLE seeks ADD COLUMN range_min BIGINT;       -- the takers' ratings accepted; both NULL: any
ALTER TABLE seeks ADD COLUMN range_max BIGINT;

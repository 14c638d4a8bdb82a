-- Tournaments (issue 45): each one's own append-only event log, like a room's (events), and a
-- row with what the lists show. Expand only: new tables.
CREATE TABLE tournaments (
    id         TEXT PRIMARY KEY NOT NULL,
    starts_at  BIGINT NOT NULL,   -- unix ms
    summary    TEXT NOT NULL   -- JSON, written with every append
);

CREATE INDEX tournaments_by_start ON tournaments (starts_at);

CREATE TABLE tournament_events (
    tournament TEXT NOT NULL REFERENCES tournaments (id),
    v          BIGINT NOT NULL,   -- 1, 2, … within the tournament
    at         BIGINT NOT NULL,   -- unix ms
    kind       TEXT NOT NULL,
    data       TEXT NOT NULL,   -- JSON
    PRIMARY KEY (tournament, v)
);

-- Challenges, blocks and follows (issue 46 items 3, 4 and 6). New tables only.
-- A challenge names its challenger and either the challenged player or nobody (a link
-- challenge: whoever opens the link, whose id is the invite, may accept it). Its room is made
-- when it is accepted; the challenger's seat token is kept here until then for the challenger
-- to fetch with their player cookie (as tournament_seats does).
CREATE TABLE challenges (
    id               TEXT PRIMARY KEY,
    challenger       TEXT NOT NULL REFERENCES players (id),
    challenged       TEXT REFERENCES players (id),   -- NULL: a link challenge
    address          TEXT NOT NULL,                  -- the challenger's client address
    clock            TEXT NOT NULL,                  -- the time control, as JSON
    side             TEXT NOT NULL,                  -- the challenger's: black, white, random
    rated            BIGINT NOT NULL,               -- 1 or 0
    message          TEXT,                           -- a preset message's id
    status           TEXT NOT NULL,                  -- pending, accepted, declined, cancelled, expired
    reason           TEXT,                           -- a decline's reason id
    room             TEXT,
    challenger_token TEXT,                           -- the challenger's seat token, once accepted
    created_at       BIGINT NOT NULL,                -- unix ms
    expires_at       BIGINT NOT NULL,
    decided_at       BIGINT
);
CREATE INDEX challenges_by_challenger ON challenges (challenger, status);
CREATE INDEX challenges_by_challenged ON challenges (challenged, status);
CREATE INDEX challenges_by_address ON challenges (address, status);

CREATE TABLE blocks (
    player     TEXT NOT NULL REFERENCES players (id),
    blocked    TEXT NOT NULL REFERENCES players (id),
    at         BIGINT NOT NULL,
    PRIMARY KEY (player, blocked)
);
CREATE INDEX blocks_by_blocked ON blocks (blocked);

CREATE TABLE follows (
    player     TEXT NOT NULL REFERENCES players (id),
    followed   TEXT NOT NULL REFERENCES players (id),
    at         BIGINT NOT NULL,
    PRIMARY KEY (player, followed)
);

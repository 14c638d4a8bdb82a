-- Operator bans (an address or a network, until a time) and the audit log of every operator
-- action (`senet admin`), issue 32.
CREATE TABLE bans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    network TEXT NOT NULL,
    until_ms INTEGER NOT NULL,
    reason TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    lifted_at INTEGER
) STRICT;
CREATE INDEX bans_active ON bans (until_ms) WHERE lifted_at IS NULL;

CREATE TABLE audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    reason TEXT NOT NULL
) STRICT;

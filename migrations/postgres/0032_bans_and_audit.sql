-- Operator bans (an address or a network, until a time) and the audit log of every operator
-- action (`senet admin`), issue 32.
CREATE TABLE bans (
    id BIGSERIAL PRIMARY KEY,
    network TEXT NOT NULL,
    until_ms BIGINT NOT NULL,
    reason TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    lifted_at BIGINT
);
CREATE INDEX bans_active ON bans (until_ms) WHERE lifted_at IS NULL;

CREATE TABLE audit (
    id BIGSERIAL PRIMARY KEY,
    at BIGINT NOT NULL,
    actor TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    reason TEXT NOT NULL
);

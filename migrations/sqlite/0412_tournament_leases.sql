-- One director per tournament across instances (issue 45): the instance that holds a
-- tournament's row until expires_at directs it; it renews the row while it lives, and another
-- instance takes a row whose time ran out. Expand only: a new table.
CREATE TABLE tournament_leases (
    tournament TEXT PRIMARY KEY NOT NULL,
    holder     TEXT NOT NULL,      -- the directing instance's random id
    expires_at INTEGER NOT NULL    -- unix ms
) STRICT;

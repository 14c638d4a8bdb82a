-- Which releases may still run on this database (docs/UPGRADES.md). Migrations only expand the
-- schema (new tables, nullable columns or columns with a default), so a release older than the
-- database's newest migration still runs on it during a rolling update, ignoring what it does
-- not know. A migration that contracts (drops or renames what an older release reads) adds a
-- row here naming the oldest release that still works after it; an older binary refuses to
-- start (src/store/schema.rs). Empty until the first contract.
CREATE TABLE schema_contracts (
    migration      BIGINT PRIMARY KEY NOT NULL,  -- the contracting migration's version
    oldest_release TEXT NOT NULL,                -- e.g. '0.3.0': older binaries refuse to start
    why            TEXT NOT NULL
);

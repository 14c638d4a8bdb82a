-- Web Push (issue 46): the server's VAPID key (RFC 8292; one row, made by the first instance to
-- start unless the operator gives one with --vapid-private-key), and each device's push
-- subscription (RFC 8030: the push service's endpoint and the browser's keys, RFC 8291), at most
-- 10 per player (the server refuses more).
CREATE TABLE vapid_key (
    id          INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    private_key TEXT NOT NULL                     -- the P-256 scalar, base64url
) STRICT;

CREATE TABLE push_subscriptions (
    endpoint   TEXT PRIMARY KEY NOT NULL,
    player     TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
    p256dh     TEXT NOT NULL,                     -- base64url, as the browser gives it
    auth       TEXT NOT NULL,                     -- base64url
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX push_subscriptions_player ON push_subscriptions (player);

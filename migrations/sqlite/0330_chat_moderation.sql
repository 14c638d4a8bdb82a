-- Chat moderation (issue 33): reports of a room's last messages for the operators, and
-- operators' time-outs of a player from chat. Hiding a message is an event of the room's log;
-- every operator action is in `audit`.
CREATE TABLE chat_reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    room TEXT NOT NULL,
    at INTEGER NOT NULL,
    reporter TEXT NOT NULL,     -- black, white or a spectator's handle
    player TEXT,                -- the reporter's player id, when identified
    reason TEXT NOT NULL,
    lines TEXT NOT NULL         -- the room's last messages, as JSON
) STRICT;
CREATE INDEX chat_reports_room ON chat_reports (room);

CREATE TABLE chat_timeouts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    player TEXT NOT NULL,
    until_ms INTEGER NOT NULL,
    reason TEXT NOT NULL,
    created_by TEXT NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE INDEX chat_timeouts_player ON chat_timeouts (player, until_ms);

-- Classes (issue 50): a teacher's class without accounts. A pupil is a first name and a hashed
-- secret (the senet_pupil cookie), never a player; the class's games are ordinary rooms, listed
-- here with the seat tokens handed to their pupils. Everything here goes with the class: at its
-- expires_at (the retention the teacher was shown) or at once on the teacher's request.
CREATE TABLE classes (
    id         TEXT PRIMARY KEY,
    teacher    TEXT NOT NULL,              -- the player id of the teacher
    name       TEXT NOT NULL,
    code       TEXT NOT NULL UNIQUE,       -- the join code, 10 letters and digits
    chat       TEXT NOT NULL,              -- 'none' or 'presets'
    lesson     TEXT,                       -- the lesson the teacher started for all, if any
    created_at BIGINT NOT NULL,           -- unix ms
    expires_at BIGINT NOT NULL            -- unix ms: deleted then
);
CREATE INDEX classes_by_teacher ON classes (teacher);
CREATE INDEX classes_by_expiry ON classes (expires_at);

CREATE TABLE class_pupils (
    id          TEXT PRIMARY KEY,
    class       TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL,             -- players::name::key_of: unique within the class
    secret_hash TEXT NOT NULL UNIQUE,
    joined_at   BIGINT NOT NULL,
    UNIQUE (class, name_key)
);

CREATE TABLE class_games (
    room        TEXT PRIMARY KEY,
    class       TEXT NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    black       TEXT,                      -- a pupil's id, or NULL for the computer
    white       TEXT,
    black_token TEXT,                      -- the seat token handed to that pupil
    white_token TEXT,
    started_at  BIGINT NOT NULL
);
CREATE INDEX class_games_by_class ON class_games (class);

CREATE TABLE class_lessons (
    pupil  TEXT NOT NULL REFERENCES class_pupils (id) ON DELETE CASCADE,
    lesson TEXT NOT NULL,
    at     BIGINT NOT NULL,
    PRIMARY KEY (pupil, lesson)
);

-- "Needs practice" (issue 50 item 3): how often each pupil touched a piece the engine refused,
-- per rule (an engine refusal code such as must_stop_on_26). One row per pupil and rule, so at
-- most a handful per pupil; the count stops at a cap. Gone with the pupil, so with the class.
CREATE TABLE class_stumbles (
    pupil TEXT NOT NULL REFERENCES class_pupils (id) ON DELETE CASCADE,
    rule  TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (pupil, rule)
) STRICT;

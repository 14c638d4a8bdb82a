//! The classes' store (migrations 0470, 0480): the same statements on SQLite and PostgreSQL
//! ([`on_pool`], as the puzzle ratings do). A pupil's seat is counted in the same transaction
//! that adds them (`BEGIN IMMEDIATE` on SQLite, the class's row locked `FOR UPDATE` on
//! PostgreSQL), so two pupils joining at once cannot make a class hold more than its bound.

use sqlx::Row;

use super::stumbles::MAX_COUNT;
use super::{ClassError, MAX_OPEN_PER_TEACHER, MAX_PUPILS};
use crate::players::pool::Pool;
use crate::protocol::UnixMs;

/// A class as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRow {
    pub id: String,
    pub teacher: String,
    pub name: String,
    pub code: String,
    /// `none` or `presets`.
    pub chat: String,
    pub lesson: Option<String>,
    pub created_at: UnixMs,
    pub expires_at: UnixMs,
}

/// A pupil as stored (their secret only hashed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PupilRow {
    pub id: String,
    pub class: String,
    pub name: String,
    pub joined_at: UnixMs,
}

/// One of a class's games: its room, its pupils (`None`: the computer) and their seat tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRow {
    pub room: String,
    pub black: Option<String>,
    pub white: Option<String>,
    pub black_token: Option<String>,
    pub white_token: Option<String>,
    pub started_at: UnixMs,
}

/// The class's row, read at the start of a pupil's join: locked on PostgreSQL (SQLite's
/// `BEGIN IMMEDIATE` holds the whole database).
const LOCK_CLASS: &str = "SELECT id FROM classes WHERE id = $1";
const LOCK_CLASS_PG: &str = "SELECT id FROM classes WHERE id = $1 FOR UPDATE";

/// Runs `$body` with `$pool` bound to the store's pool: the statements are the same text on
/// both backends (SQLite reads `$1` as PostgreSQL does).
macro_rules! on_pool {
    ($store:expr, |$pool:ident, $begin:ident, $lock:ident| $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => {
                let ($begin, $lock) = ("BEGIN IMMEDIATE", LOCK_CLASS);
                $body
            }
            Pool::Pg($pool) => {
                let ($begin, $lock) = ("BEGIN", LOCK_CLASS_PG);
                $body
            }
        }
    };
}

macro_rules! class_columns {
    () => {
        "id, teacher, name, code, chat, lesson, created_at, expires_at"
    };
}
macro_rules! game_columns {
    () => {
        "room, black, white, black_token, white_token, started_at"
    };
}

pub struct ClassStore {
    pool: Pool,
}

fn class_of<R: Row>(row: &R) -> Result<ClassRow, sqlx::Error>
where
    for<'r> &'r str: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(ClassRow {
        id: row.try_get("id")?,
        teacher: row.try_get("teacher")?,
        name: row.try_get("name")?,
        code: row.try_get("code")?,
        chat: row.try_get("chat")?,
        lesson: row.try_get("lesson")?,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}

fn pupil_of<R: Row>(row: &R) -> Result<PupilRow, sqlx::Error>
where
    for<'r> &'r str: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(PupilRow {
        id: row.try_get("id")?,
        class: row.try_get("class")?,
        name: row.try_get("name")?,
        joined_at: row.try_get("joined_at")?,
    })
}

fn game_of<R: Row>(row: &R) -> Result<GameRow, sqlx::Error>
where
    for<'r> &'r str: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(GameRow {
        room: row.try_get("room")?,
        black: row.try_get("black")?,
        white: row.try_get("white")?,
        black_token: row.try_get("black_token")?,
        white_token: row.try_get("white_token")?,
        started_at: row.try_get("started_at")?,
    })
}

/// Reads every row of `$rows` with `$of`.
fn all<R, T>(rows: &[R], of: fn(&R) -> Result<T, sqlx::Error>) -> Result<Vec<T>, ClassError> {
    Ok(rows.iter().map(of).collect::<Result<_, _>>()?)
}

impl ClassStore {
    pub async fn open(url: &str) -> Result<ClassStore, ClassError> {
        // Four connections: a class's thirty pupils join at once.
        Ok(ClassStore {
            pool: Pool::open(url, 4).await?,
        })
    }

    /// Stores a new class unless its teacher has [`MAX_OPEN_PER_TEACHER`] already.
    pub async fn create(&self, class: &ClassRow) -> Result<(), ClassError> {
        let count = "SELECT COUNT(*) FROM classes WHERE teacher = $1 AND expires_at > $2";
        let insert = concat!(
            "INSERT INTO classes (",
            class_columns!(),
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        );
        on_pool!(self, |pool, begin, _lock| {
            let mut tx = pool.begin_with(begin).await?;
            let open: i64 = sqlx::query(count)
                .bind(&class.teacher)
                .bind(class.created_at)
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            if open >= MAX_OPEN_PER_TEACHER as i64 {
                return Err(ClassError::TooManyOpen);
            }
            sqlx::query(insert)
                .bind(&class.id)
                .bind(&class.teacher)
                .bind(&class.name)
                .bind(&class.code)
                .bind(&class.chat)
                .bind(&class.lesson)
                .bind(class.created_at)
                .bind(class.expires_at)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// The class `id`, unless it expired before `now`.
    pub async fn class(&self, id: &str, now: UnixMs) -> Result<Option<ClassRow>, ClassError> {
        let query = concat!(
            "SELECT ",
            class_columns!(),
            " FROM classes WHERE id = $1 AND expires_at > $2"
        );
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(query)
                .bind(id)
                .bind(now)
                .fetch_optional(pool)
                .await?;
            Ok(row.as_ref().map(class_of).transpose()?)
        })
    }

    /// The open class whose join code is `code`.
    pub async fn by_code(&self, code: &str, now: UnixMs) -> Result<Option<ClassRow>, ClassError> {
        let query = concat!(
            "SELECT ",
            class_columns!(),
            " FROM classes WHERE code = $1 AND expires_at > $2"
        );
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(query)
                .bind(code)
                .bind(now)
                .fetch_optional(pool)
                .await?;
            Ok(row.as_ref().map(class_of).transpose()?)
        })
    }

    /// The teacher's open classes, the newest first.
    pub async fn of_teacher(
        &self,
        teacher: &str,
        now: UnixMs,
    ) -> Result<Vec<ClassRow>, ClassError> {
        let query = concat!(
            "SELECT ",
            class_columns!(),
            " FROM classes WHERE teacher = $1 AND expires_at > $2 ORDER BY created_at DESC"
        );
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(query)
                .bind(teacher)
                .bind(now)
                .fetch_all(pool)
                .await?;
            all(&rows, class_of)
        })
    }

    /// Seats a pupil named `name` (its key `name_key`) unless the class is full or the name
    /// taken; the class must exist.
    pub async fn add_pupil(
        &self,
        pupil: &PupilRow,
        name_key: &str,
        secret_hash: &str,
    ) -> Result<(), ClassError> {
        let insert = "INSERT INTO class_pupils (id, class, name, name_key, secret_hash, joined_at) \
                      VALUES ($1, $2, $3, $4, $5, $6)";
        on_pool!(self, |pool, begin, lock| {
            let mut tx = pool.begin_with(begin).await?;
            sqlx::query(lock)
                .bind(&pupil.class)
                .fetch_optional(&mut *tx)
                .await?
                .ok_or(ClassError::NotFound)?;
            let seated: i64 = sqlx::query("SELECT COUNT(*) FROM class_pupils WHERE class = $1")
                .bind(&pupil.class)
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            if seated >= MAX_PUPILS as i64 {
                return Err(ClassError::Full);
            }
            let taken =
                sqlx::query("SELECT id FROM class_pupils WHERE class = $1 AND name_key = $2")
                    .bind(&pupil.class)
                    .bind(name_key)
                    .fetch_optional(&mut *tx)
                    .await?;
            if taken.is_some() {
                return Err(ClassError::NameTaken);
            }
            sqlx::query(insert)
                .bind(&pupil.id)
                .bind(&pupil.class)
                .bind(&pupil.name)
                .bind(name_key)
                .bind(secret_hash)
                .bind(pupil.joined_at)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// The pupil whose secret hashes to `secret_hash`, in a class still open at `now`.
    pub async fn pupil_by_secret(
        &self,
        secret_hash: &str,
        now: UnixMs,
    ) -> Result<Option<PupilRow>, ClassError> {
        let query = "SELECT p.id, p.class, p.name, p.joined_at FROM class_pupils p \
                     JOIN classes c ON c.id = p.class WHERE p.secret_hash = $1 AND c.expires_at > $2";
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(query)
                .bind(secret_hash)
                .bind(now)
                .fetch_optional(pool)
                .await?;
            Ok(row.as_ref().map(pupil_of).transpose()?)
        })
    }

    /// The class's pupils in the order they joined.
    pub async fn pupils(&self, class: &str) -> Result<Vec<PupilRow>, ClassError> {
        let query = "SELECT id, class, name, joined_at FROM class_pupils WHERE class = $1 \
                     ORDER BY joined_at, id";
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(query).bind(class).fetch_all(pool).await?;
            all(&rows, pupil_of)
        })
    }

    /// Removes a pupil (their lessons with them); whether there was one.
    pub async fn remove_pupil(&self, class: &str, pupil: &str) -> Result<bool, ClassError> {
        let query = "DELETE FROM class_pupils WHERE class = $1 AND id = $2";
        on_pool!(self, |pool, _begin, _lock| {
            let done = sqlx::query(query)
                .bind(class)
                .bind(pupil)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() > 0)
        })
    }

    /// Lists games the class started.
    pub async fn add_games(&self, class: &str, games: &[GameRow]) -> Result<(), ClassError> {
        let insert = concat!(
            "INSERT INTO class_games (class, ",
            game_columns!(),
            ") VALUES ($1, $2, $3, $4, $5, $6, $7)"
        );
        on_pool!(self, |pool, _begin, _lock| {
            let mut tx = pool.begin().await?;
            for game in games {
                sqlx::query(insert)
                    .bind(class)
                    .bind(&game.room)
                    .bind(&game.black)
                    .bind(&game.white)
                    .bind(&game.black_token)
                    .bind(&game.white_token)
                    .bind(game.started_at)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    /// The class's games, the oldest first.
    pub async fn games(&self, class: &str) -> Result<Vec<GameRow>, ClassError> {
        let query = concat!(
            "SELECT ",
            game_columns!(),
            " FROM class_games WHERE class = $1 ORDER BY started_at, room"
        );
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(query).bind(class).fetch_all(pool).await?;
            all(&rows, game_of)
        })
    }

    /// The chat the teacher chose for the class whose game is in `room` (`none` or `presets`);
    /// `None` when it is no class game.
    pub async fn class_chat_of_room(&self, room: &str) -> Result<Option<String>, ClassError> {
        let query =
            "SELECT c.chat FROM class_games g JOIN classes c ON c.id = g.class WHERE g.room = $1";
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(query).bind(room).fetch_optional(pool).await?;
            Ok(row.map(|row| row.try_get(0)).transpose()?)
        })
    }

    /// The lesson the teacher started for all (`None`: none).
    pub async fn set_lesson(&self, class: &str, lesson: Option<&str>) -> Result<(), ClassError> {
        let query = "UPDATE classes SET lesson = $1 WHERE id = $2";
        on_pool!(self, |pool, _begin, _lock| {
            sqlx::query(query)
                .bind(lesson)
                .bind(class)
                .execute(pool)
                .await?;
            Ok(())
        })
    }

    /// A pupil finished a lesson (again: nothing changes).
    pub async fn lesson_done(
        &self,
        pupil: &str,
        lesson: &str,
        at: UnixMs,
    ) -> Result<(), ClassError> {
        let query = "INSERT INTO class_lessons (pupil, lesson, at) VALUES ($1, $2, $3) \
                     ON CONFLICT (pupil, lesson) DO NOTHING";
        on_pool!(self, |pool, _begin, _lock| {
            sqlx::query(query)
                .bind(pupil)
                .bind(lesson)
                .bind(at)
                .execute(pool)
                .await?;
            Ok(())
        })
    }

    /// The lessons the class's pupils finished: `(pupil, lesson)`.
    pub async fn lessons_done(&self, class: &str) -> Result<Vec<(String, String)>, ClassError> {
        let query = "SELECT l.pupil, l.lesson FROM class_lessons l \
                     JOIN class_pupils p ON p.id = l.pupil WHERE p.class = $1 ORDER BY l.at";
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(query).bind(class).fetch_all(pool).await?;
            let pair = |row: &_| -> Result<(String, String), sqlx::Error> {
                Ok((Row::try_get(row, 0)?, Row::try_get(row, 1)?))
            };
            rows.iter()
                .map(pair)
                .collect::<Result<_, _>>()
                .map_err(Into::into)
        })
    }

    /// A pupil touched a piece `rule` refused: one more, up to [`MAX_COUNT`].
    pub async fn stumbled(&self, pupil: &str, rule: &str) -> Result<(), ClassError> {
        let query = "INSERT INTO class_stumbles (pupil, rule, count) VALUES ($1, $2, 1) \
                     ON CONFLICT (pupil, rule) DO UPDATE \
                     SET count = CASE WHEN class_stumbles.count < $3 \
                     THEN class_stumbles.count + 1 ELSE $3 END";
        on_pool!(self, |pool, _begin, _lock| {
            sqlx::query(query)
                .bind(pupil)
                .bind(rule)
                .bind(MAX_COUNT)
                .execute(pool)
                .await?;
            Ok(())
        })
    }

    /// The class's pupils' stumbles: `(pupil, rule, count)`, most first.
    pub async fn stumbles(&self, class: &str) -> Result<Vec<(String, String, i64)>, ClassError> {
        let query = "SELECT s.pupil, s.rule, s.count FROM class_stumbles s \
                     JOIN class_pupils p ON p.id = s.pupil WHERE p.class = $1 \
                     ORDER BY s.count DESC, s.rule";
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(query).bind(class).fetch_all(pool).await?;
            let line = |row: &_| -> Result<(String, String, i64), sqlx::Error> {
                Ok((
                    Row::try_get(row, 0)?,
                    Row::try_get(row, 1)?,
                    Row::try_get(row, 2)?,
                ))
            };
            rows.iter()
                .map(line)
                .collect::<Result<_, _>>()
                .map_err(Into::into)
        })
    }

    /// Deletes a class with its pupils, games and lessons; whether there was one.
    pub async fn delete(&self, class: &str) -> Result<bool, ClassError> {
        on_pool!(self, |pool, _begin, _lock| {
            let done = sqlx::query("DELETE FROM classes WHERE id = $1")
                .bind(class)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() > 0)
        })
    }

    /// Deletes every class that expired by `now`; how many.
    pub async fn delete_expired(&self, now: UnixMs) -> Result<u64, ClassError> {
        on_pool!(self, |pool, _begin, _lock| {
            let done = sqlx::query("DELETE FROM classes WHERE expires_at <= $1")
                .bind(now)
                .execute(pool)
                .await?;
            Ok(done.rows_affected())
        })
    }
}

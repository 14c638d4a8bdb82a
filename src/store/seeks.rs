//! The lobby's rows (`seeks`, migration 0015), written once for both backends: [`seek_rows!`]
//! makes the same functions for each database type (generic code over sqlx's databases needs a
//! bound per column type and statement; the macro keeps the functions readable), and each
//! backend gives its SQL ([`SeekStatements`]).
//!
//! A seek cancelled or withdrawn takes its room with it (unless someone joined it by its id and
//! started its game): a late joiner finds no room, and no game can start there.
//!
//! Every change runs in one transaction with, on PostgreSQL, a notification per seek it changes
//! ([`super::postgres::listener::seek_payload`]), so the other instances' lobbies hear of it when
//! (and only if) it commits. Quick pairing first takes a lock that serializes pairings across
//! instances (on SQLite the one writer does), so two visitors who ask at once are paired with
//! each other instead of both waiting.

use sqlx::{Pool, QueryBuilder, Row, Transaction};

use super::postgres::listener::{CHANNEL, seek_payload};
use super::rows::Statements;
use super::sweep;
use super::{Poster, SeekChange, SeekRow, StoreError};
use crate::protocol::{SeekGone, TimeControl, UnixMs};

/// One backend's SQL for the lobby's rows.
pub(super) struct SeekStatements {
    /// The same backend's statements on rooms: a withdrawn seek's room is deleted with it.
    pub rooms: &'static Statements,
    /// Inserts a seek (room, side, clock initial and increment, created_at, expires_at, owner,
    /// visitor) unless its owner holds the cap (bound twice, 0: none) of open seeks, or all
    /// owners together hold the total cap (bound twice).
    pub insert: &'static str,
    /// Every column of one seek, by room.
    pub select: &'static str,
    /// Every column of the open seeks, newest first.
    pub select_open: &'static str,
    /// Every column of up to a number of taken seeks (games), most recently taken first.
    pub select_taken: &'static str,
    /// Marks an open seek taken at a time: (taken_at, room).
    pub take: &'static str,
    /// Deletes a seek, by room, only while it is open.
    pub delete_open: &'static str,
    /// Deletes a seek, by room, open or taken.
    pub delete: &'static str,
    /// Rooms of the open seeks whose expiry is before a time.
    pub select_expired: &'static str,
    /// The room of the oldest open seek with a time control (initial, increment; NULL-safe)
    /// whose visitor is not the one given and whose room is not the one given, whose poster has
    /// not blocked the asker nor been blocked by them (`blocks`, migration 0450); its poster's
    /// rating inside the asker's range (min, max; NULL: any) as the last two.
    pub select_match: &'static str,
    /// Serializes quick pairings until the transaction ends, where the database needs it.
    pub lock_pairing: Option<&'static str>,
    /// Sends a notification (channel, payload) when the transaction commits, where other
    /// instances listen.
    pub notify: Option<&'static str>,
}

/// Makes module `$name` with the lobby's row functions for database `$db`.
macro_rules! seek_rows {
    ($name:ident, $db:ty) => {
        pub(super) mod $name {
            use super::*;

            type Db = $db;

            /// Stores a new seek unless a cap is reached (`false`); 0 is no cap.
            pub async fn post(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                seek: &SeekRow,
                per_owner: u32,
                total: u32,
            ) -> Result<bool, StoreError> {
                let mut tx = pool.begin().await?;
                let (initial, increment) = clock_columns(seek.clock);
                let inserted = sqlx::query(sql.insert)
                    .bind(seek.room.clone())
                    .bind(<&str>::from(seek.side).to_string())
                    .bind(initial)
                    .bind(increment)
                    .bind(seek.created_at)
                    .bind(seek.expires_at)
                    .bind(seek.owner.clone())
                    .bind(seek.visitor.clone())
                    .bind(seek.poster.player.clone())
                    .bind(seek.poster.rated)
                    .bind(seek.poster.rating)
                    .bind(seek.poster.range.map(|[min, _]| min))
                    .bind(seek.poster.range.map(|[_, max]| max))
                    .bind(seek.owner.clone())
                    .bind(i64::from(per_owner))
                    .bind(i64::from(per_owner))
                    .bind(i64::from(total))
                    .bind(i64::from(total))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected()
                    > 0;
                notify(&mut tx, sql, inserted, &seek.room, SeekChange::Open).await?;
                tx.commit().await?;
                Ok(inserted)
            }

            pub async fn seek(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                room: &str,
            ) -> Result<Option<SeekRow>, StoreError> {
                let row = sqlx::query(sql.select)
                    .bind(room.to_string())
                    .fetch_optional(pool)
                    .await?;
                row.as_ref().map(seek_from_row).transpose()
            }

            pub async fn open(
                pool: &Pool<Db>,
                sql: &SeekStatements,
            ) -> Result<Vec<SeekRow>, StoreError> {
                let rows = sqlx::query(sql.select_open).fetch_all(pool).await?;
                rows.iter().map(seek_from_row).collect()
            }

            pub async fn taken(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                limit: u32,
            ) -> Result<Vec<SeekRow>, StoreError> {
                let rows = sqlx::query(sql.select_taken)
                    .bind(i64::from(limit))
                    .fetch_all(pool)
                    .await?;
                rows.iter().map(seek_from_row).collect()
            }

            pub async fn take(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                room: &str,
                at: UnixMs,
            ) -> Result<bool, StoreError> {
                let mut tx = pool.begin().await?;
                let taken = take_in(&mut tx, sql, room, at).await?;
                tx.commit().await?;
                Ok(taken)
            }

            async fn take_in(
                tx: &mut Transaction<'_, Db>,
                sql: &SeekStatements,
                room: &str,
                at: UnixMs,
            ) -> Result<bool, StoreError> {
                let taken = sqlx::query(sql.take)
                    .bind(at)
                    .bind(room.to_string())
                    .execute(&mut **tx)
                    .await?
                    .rows_affected()
                    > 0;
                let change = SeekChange::Gone(SeekGone::Taken);
                notify(tx, sql, taken, room, change).await?;
                Ok(taken)
            }

            pub async fn withdraw(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                room: &str,
                why: SeekGone,
            ) -> Result<bool, StoreError> {
                let mut tx = pool.begin().await?;
                let gone = withdraw_in(&mut tx, sql, room, why).await?;
                tx.commit().await?;
                Ok(gone)
            }

            /// Deletes an open seek and, unless its game started (someone joined by the room's
            /// id), its room: nobody can join a seek's room once it is withdrawn.
            async fn withdraw_in(
                tx: &mut Transaction<'_, Db>,
                sql: &SeekStatements,
                room: &str,
                why: SeekGone,
            ) -> Result<bool, StoreError> {
                // The room's row first, as the unstarted-room sweep takes them (rooms, then
                // their seeks): the two never wait for each other.
                let unstarted = sweep::lock_unstarted::<Db>(&mut **tx, sql.rooms, room).await?;
                let gone = sqlx::query(sql.delete_open)
                    .bind(room.to_string())
                    .execute(&mut **tx)
                    .await?
                    .rows_affected()
                    > 0;
                if gone && unstarted {
                    sweep::delete_room::<Db>(&mut **tx, sql.rooms, room).await?;
                }
                notify(tx, sql, gone, room, SeekChange::Gone(why)).await?;
                Ok(gone)
            }

            pub async fn unlist(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                room: &str,
            ) -> Result<(), StoreError> {
                sqlx::query(sql.delete)
                    .bind(room.to_string())
                    .execute(pool)
                    .await?;
                Ok(())
            }

            pub async fn renew(
                pool: &Pool<Db>,
                rooms: &[String],
                until: UnixMs,
            ) -> Result<(), StoreError> {
                if rooms.is_empty() {
                    return Ok(());
                }
                let mut query = QueryBuilder::<Db>::new("UPDATE seeks SET expires_at = ");
                query.push_bind(until);
                query.push(" WHERE taken_at IS NULL AND room IN (");
                let mut list = query.separated(", ");
                for room in rooms {
                    list.push_bind(room.clone());
                }
                query.push(")");
                query.build().execute(pool).await?;
                Ok(())
            }

            pub async fn expire(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                now: UnixMs,
            ) -> Result<Vec<String>, StoreError> {
                let mut tx = pool.begin().await?;
                let expired: Vec<(String,)> = sqlx::query_as(sql.select_expired)
                    .bind(now)
                    .fetch_all(&mut *tx)
                    .await?;
                let mut gone = Vec::with_capacity(expired.len());
                for (room,) in expired {
                    if withdraw_in(&mut tx, sql, &room, SeekGone::Withdrawn).await? {
                        gone.push(room);
                    }
                }
                tx.commit().await?;
                Ok(gone)
            }

            pub async fn pair(
                pool: &Pool<Db>,
                sql: &SeekStatements,
                pairing: &Pairing<'_>,
            ) -> Result<Option<String>, StoreError> {
                let mut tx = pool.begin().await?;
                if let Some(lock) = sql.lock_pairing {
                    sqlx::query(lock).execute(&mut *tx).await?;
                }
                let (initial, increment) = clock_columns(pairing.clock);
                let found: Option<(String,)> = sqlx::query_as(sql.select_match)
                    .bind(initial)
                    .bind(increment)
                    .bind(pairing.visitor.to_string())
                    .bind(pairing.own.unwrap_or_default().to_string())
                    .bind(pairing.poster.rated)
                    .bind(pairing.poster.player.clone())
                    .bind(pairing.poster.rating)
                    .bind(pairing.at)
                    .bind(pairing.window.first)
                    .bind(pairing.window.step)
                    .bind(pairing.window.every_ms)
                    .bind(pairing.window.unlimited_after_ms)
                    .bind(pairing.poster.range.map(|[min, _]| min))
                    .bind(pairing.poster.range.map(|[_, max]| max))
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some((room,)) = found else {
                    return Ok(None);
                };
                // One's own seek goes in the same step, or it was taken meanwhile: then that
                // is the pairing, and the other seek stays for someone else.
                if let Some(own) = pairing.own
                    && !withdraw_in(&mut tx, sql, own, SeekGone::Cancelled).await?
                {
                    return Ok(None);
                }
                let taken = take_in(&mut tx, sql, &room, pairing.at).await?;
                tx.commit().await?;
                Ok(taken.then_some(room))
            }

            async fn notify(
                tx: &mut Transaction<'_, Db>,
                sql: &SeekStatements,
                changed: bool,
                room: &str,
                what: SeekChange,
            ) -> Result<(), StoreError> {
                if let (true, Some(notify)) = (changed, sql.notify) {
                    sqlx::query(notify)
                        .bind(CHANNEL.to_string())
                        .bind(seek_payload(room, what))
                        .execute(&mut **tx)
                        .await?;
                }
                Ok(())
            }

            fn seek_from_row(row: &<Db as sqlx::Database>::Row) -> Result<SeekRow, StoreError> {
                let side: String = row.try_get("side")?;
                let range_min: Option<i64> = row.try_get("range_min")?;
                let range_max: Option<i64> = row.try_get("range_max")?;
                Ok(SeekRow {
                    room: row.try_get("room")?,
                    side: side
                        .parse()
                        .map_err(|_| StoreError::Corrupt(format!("seek side {side:?}")))?,
                    clock: super::super::rows::clock_from(
                        row.try_get("clock_initial")?,
                        row.try_get("clock_increment")?,
                    )?,
                    created_at: row.try_get("created_at")?,
                    expires_at: row.try_get("expires_at")?,
                    owner: row.try_get("owner")?,
                    visitor: row.try_get("visitor")?,
                    taken_at: row.try_get("taken_at")?,
                    poster: Poster {
                        player: row.try_get("player")?,
                        rated: row.try_get("rated")?,
                        rating: row.try_get("rating")?,
                        range: range_min.zip(range_max).map(|(min, max)| [min, max]),
                    },
                })
            }
        }
    };
}

seek_rows!(sqlite, sqlx::Sqlite);
seek_rows!(postgres, sqlx::Postgres);

/// A quick pairing's question to the store: the oldest open seek with the same time control and
/// rated choice, not the asker's own (by visitor or by player), whose range holds the asker's
/// rating, and whose poster's rating is inside the seek's [`Window`]; the nearest rating first.
pub struct Pairing<'a> {
    pub clock: Option<TimeControl>,
    /// Who asks by identity: their rated choice, player and rating.
    pub poster: &'a Poster,
    /// How far apart two ratings may be, by how long the seek has waited.
    pub window: Window,
    /// Who asks: their own seeks are skipped.
    pub visitor: &'a str,
    /// The seek the asker posted after finding none, if any: withdrawn in the same step as the
    /// other is taken, so nobody holds two.
    pub own: Option<&'a str>,
    pub at: UnixMs,
}

/// How far from a seek's rating quick pairing looks, widening while the seek waits: `first`
/// either way at once, `step` more every `every_ms`, and any rating once it has waited
/// `unlimited_after_ms`. The seek's wait, not the asker's: the asker has just arrived, and the
/// seek's poster is the one who waited (and whose window is wider).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    pub first: i64,
    pub step: i64,
    pub every_ms: i64,
    pub unlimited_after_ms: i64,
}

impl Default for Window {
    /// ±100 at first, 50 more every 5 s, unlimited after 30 s.
    fn default() -> Self {
        Window {
            first: 100,
            step: 50,
            every_ms: 5_000,
            unlimited_after_ms: 30_000,
        }
    }
}

/// A time control as its two columns, both NULL when untimed.
fn clock_columns(clock: Option<TimeControl>) -> (Option<i64>, Option<i64>) {
    clock
        .map(|clock| (i64::from(clock.initial), i64::from(clock.increment)))
        .unzip()
}

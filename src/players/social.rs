//! Challenges, blocks and follows (issue 46; migration 0450), on both backends through
//! [`on_pool`]. Every bound a stranger could push is checked in the transaction that would pass
//! it, after locking the asker's player row (PostgreSQL `FOR UPDATE`; SQLite's `BEGIN
//! IMMEDIATE`), so two requests at once cannot both slip under it. The bounds themselves are
//! [`Bounds`], documented in docs/OPERATING.md.
//!
//! A challenge moves from `pending` once: to `accepted`, `declined`, `cancelled` or `expired`,
//! each by one `UPDATE … WHERE status = 'pending'`, so of an accept and a cancel at once (on any
//! instance) exactly one wins. A pending challenge past its `expires_at` is never accepted: the
//! accept's `UPDATE` asks for an expiry in the future, and the sweep marks it expired.

use sqlx::Row;

use super::pool::{Pool, RowLike, on_pool};
use super::store::PlayerError;
use crate::protocol::UnixMs;

/// The most a stranger can make the server hold here; see docs/OPERATING.md ("Challenges,
/// blocks and follows").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Challenges one player may have waiting for an answer.
    pub pending_per_player: u32,
    /// Challenges waiting from one client address (whoever sends them).
    pub pending_per_address: u32,
    /// Challenges one player may send in an hour.
    pub sent_per_hour: u32,
    /// Challenges waiting for one player to answer.
    pub pending_per_challenged: u32,
    /// Players one player may follow.
    pub follows: u32,
    /// Players one player may block.
    pub blocks: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            pending_per_player: 5,
            pending_per_address: 10,
            sent_per_hour: 30,
            pending_per_challenged: 20,
            follows: 500,
            blocks: 1_000,
        }
    }
}

/// An hour, in ms: the window of [`Bounds::sent_per_hour`].
const HOUR_MS: UnixMs = 3_600_000;

/// What the social store refuses, or fails with; worded for the wire in `server::error`.
#[derive(Debug, thiserror::Error)]
pub enum SocialError {
    #[error(
        "you have {0} challenges waiting for an answer, as many as you may: cancel one or wait"
    )]
    TooManyPending(u32),
    #[error(
        "this address has {0} challenges waiting for an answer, as many as it may: cancel one or wait"
    )]
    TooManyFromAddress(u32),
    #[error("you sent {0} challenges in the last hour, as many as you may: try again later")]
    TooManySent(u32),
    #[error(
        "this player has {0} challenges waiting for their answer, as many as they may hold: try later"
    )]
    InboxFull(u32),
    #[error("you follow {0} players, as many as you may: unfollow one first")]
    TooManyFollows(u32),
    #[error("you block {0} players, as many as you may: unblock one first")]
    TooManyBlocks(u32),
    /// One of the two blocked the other: no challenge, chat or pairing between them.
    #[error("one of you blocked the other: no challenges, chat or games between you")]
    Blocked,
    #[error(transparent)]
    Player(#[from] PlayerError),
}

impl From<sqlx::Error> for SocialError {
    fn from(error: sqlx::Error) -> Self {
        SocialError::Player(error.into())
    }
}

/// A challenge's state.
pub mod status {
    pub const PENDING: &str = "pending";
    pub const ACCEPTED: &str = "accepted";
    pub const DECLINED: &str = "declined";
    pub const CANCELLED: &str = "cancelled";
    pub const EXPIRED: &str = "expired";
}

/// One challenge as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    pub id: String,
    pub challenger: String,
    /// `None`: a link challenge, for whoever opens the link.
    pub challenged: Option<String>,
    pub address: String,
    /// The time control, as the wire's JSON.
    pub clock: String,
    /// The challenger's side: `black`, `white` or `random`.
    pub side: String,
    pub rated: bool,
    pub message: Option<String>,
    pub status: String,
    pub reason: Option<String>,
    pub room: Option<String>,
    /// The challenger's seat token, once accepted (only ever shown to the challenger).
    pub challenger_token: Option<String>,
    pub created_at: UnixMs,
    pub expires_at: UnixMs,
}

/// How a pending challenge ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<'a> {
    /// Accepted, its game in `room`; the challenger's seat token kept for them to fetch.
    Accepted {
        room: &'a str,
        challenger_token: &'a str,
    },
    Declined {
        reason: &'a str,
    },
    Cancelled,
}

const COLUMNS: &str = "id, challenger, challenged, address, clock, side, rated, message, status, reason, \
                       room, challenger_token, created_at, expires_at";
const LOCK_PLAYER: &str = "SELECT id FROM players WHERE id = $1";
const PENDING_BY_CHALLENGER: &str = "SELECT COUNT(*) FROM challenges WHERE challenger = $1 AND status = 'pending' AND expires_at > $2";
const PENDING_BY_ADDRESS: &str =
    "SELECT COUNT(*) FROM challenges WHERE address = $1 AND status = 'pending' AND expires_at > $2";
const PENDING_BY_CHALLENGED: &str = "SELECT COUNT(*) FROM challenges WHERE challenged = $1 AND status = 'pending' AND expires_at > $2";
const SENT_SINCE: &str =
    "SELECT COUNT(*) FROM challenges WHERE challenger = $1 AND created_at > $2";
const INSERT_CHALLENGE: &str = "INSERT INTO challenges (id, challenger, challenged, address, clock, side, rated, \
                                message, status, created_at, expires_at) \
                                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, $10)";
const BLOCKED_EITHER: &str = "SELECT COUNT(*) FROM blocks WHERE (player = $1 AND blocked = $2) \
                              OR (player = $2 AND blocked = $1)";
const ACCEPT: &str = "UPDATE challenges SET status = 'accepted', room = $1, challenger_token = $2, \
                      decided_at = $3 WHERE id = $4 AND status = 'pending' AND expires_at > $3";
const DECLINE: &str = "UPDATE challenges SET status = 'declined', reason = $1, decided_at = $2 \
                       WHERE id = $3 AND status = 'pending'";
const CANCEL: &str = "UPDATE challenges SET status = 'cancelled', decided_at = $1 \
                      WHERE id = $2 AND status = 'pending'";
const DUE: &str =
    "SELECT id FROM challenges WHERE status = 'pending' AND expires_at <= $1 LIMIT 100";
const EXPIRE: &str = "UPDATE challenges SET status = 'expired', decided_at = $1 \
                      WHERE id = $2 AND status = 'pending'";
/// The pending live challenges: a live one's life is at most `$1` ms, a correspondence one's
/// days. Bounded by the pending quotas (5 a player); the limit is a guard.
const PENDING_LIVE: &str = "SELECT id, challenger, created_at FROM challenges \
                            WHERE status = 'pending' AND expires_at <= created_at + $1 LIMIT 10000";
const KEEP_UNTIL: &str =
    "UPDATE challenges SET expires_at = $1 WHERE id = $2 AND status = 'pending'";
const COUNT_BLOCKS: &str = "SELECT COUNT(*) FROM blocks WHERE player = $1";
const INSERT_BLOCK: &str =
    "INSERT INTO blocks (player, blocked, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
const DELETE_BLOCK: &str = "DELETE FROM blocks WHERE player = $1 AND blocked = $2";
const SELECT_BLOCKS: &str = "SELECT blocked FROM blocks WHERE player = $1 ORDER BY at, blocked";
const COUNT_FOLLOWS: &str = "SELECT COUNT(*) FROM follows WHERE player = $1";
const INSERT_FOLLOW: &str =
    "INSERT INTO follows (player, followed, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
const DELETE_FOLLOW: &str = "DELETE FROM follows WHERE player = $1 AND followed = $2";
const SELECT_FOLLOWS: &str = "SELECT followed FROM follows WHERE player = $1 ORDER BY at, followed";

/// A game in progress of a player: started, without its `game-over`, the latest start first.
const PLAYING: &str = "SELECT rp.room FROM room_players rp \
                       JOIN events s ON s.room = rp.room AND s.kind = 'started' \
                       WHERE (rp.black = $1 OR rp.white = $1) AND NOT EXISTS \
                       (SELECT 1 FROM events e WHERE e.room = rp.room AND e.kind = 'game-over') \
                       ORDER BY s.at DESC, rp.room LIMIT 1";

fn challenge_of(row: &impl RowLike) -> Result<ChallengeRow, sqlx::Error> {
    Ok(ChallengeRow {
        id: row.text_at(0)?,
        challenger: row.text_at(1)?,
        challenged: row.opt_text_at(2)?,
        address: row.text_at(3)?,
        clock: row.text_at(4)?,
        side: row.text_at(5)?,
        rated: row.i64_at(6)? != 0,
        message: row.opt_text_at(7)?,
        status: row.text_at(8)?,
        reason: row.opt_text_at(9)?,
        room: row.opt_text_at(10)?,
        challenger_token: row.opt_text_at(11)?,
        created_at: row.i64_at(12)?,
        expires_at: row.i64_at(13)?,
    })
}

/// Which of a player's lists a statement reads or writes.
#[derive(Clone, Copy)]
enum List {
    Blocks,
    Follows,
}

impl List {
    fn statements(self) -> [&'static str; 4] {
        match self {
            List::Blocks => [COUNT_BLOCKS, INSERT_BLOCK, DELETE_BLOCK, SELECT_BLOCKS],
            List::Follows => [COUNT_FOLLOWS, INSERT_FOLLOW, DELETE_FOLLOW, SELECT_FOLLOWS],
        }
    }
}

pub struct SocialStore {
    pool: Pool,
    bounds: Bounds,
}

impl SocialStore {
    /// Opens the store on the server's database (already migrated by the players' store).
    pub async fn open(url: &str, bounds: Bounds) -> Result<SocialStore, PlayerError> {
        Ok(SocialStore {
            pool: Pool::open(url, 2).await?,
            bounds,
        })
    }

    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// Stores a new pending challenge, unless a bound or a block refuses it.
    pub async fn challenge(&self, new: &ChallengeRow) -> Result<(), SocialError> {
        let b = self.bounds;
        let now = new.created_at;
        on_pool!(self, |pool, begin, lock| {
            let mut tx = pool.begin_with(begin).await?;
            sqlx::query(sqlx::AssertSqlSafe(format!("{LOCK_PLAYER}{lock}")))
                .bind(&new.challenger)
                .fetch_optional(&mut *tx)
                .await?;
            // The count of a statement binding a key and a time, in the transaction.
            macro_rules! count {
                ($statement:expr, $key:expr, $at:expr) => {
                    sqlx::query($statement)
                        .bind($key)
                        .bind($at)
                        .fetch_one(&mut *tx)
                        .await?
                        .try_get::<i64, _>(0)?
                };
            }
            let challenger = &new.challenger;
            if count!(PENDING_BY_CHALLENGER, challenger, now) >= i64::from(b.pending_per_player) {
                return Err(SocialError::TooManyPending(b.pending_per_player));
            }
            if count!(PENDING_BY_ADDRESS, &new.address, now) >= i64::from(b.pending_per_address) {
                return Err(SocialError::TooManyFromAddress(b.pending_per_address));
            }
            if count!(SENT_SINCE, challenger, now - HOUR_MS) >= i64::from(b.sent_per_hour) {
                return Err(SocialError::TooManySent(b.sent_per_hour));
            }
            if let Some(challenged) = &new.challenged {
                if count!(PENDING_BY_CHALLENGED, challenged, now)
                    >= i64::from(b.pending_per_challenged)
                {
                    return Err(SocialError::InboxFull(b.pending_per_challenged));
                }
                let blocked: i64 = sqlx::query(BLOCKED_EITHER)
                    .bind(challenger)
                    .bind(challenged)
                    .fetch_one(&mut *tx)
                    .await?
                    .try_get(0)?;
                if blocked > 0 {
                    return Err(SocialError::Blocked);
                }
            }
            sqlx::query(INSERT_CHALLENGE)
                .bind(&new.id)
                .bind(&new.challenger)
                .bind(&new.challenged)
                .bind(&new.address)
                .bind(&new.clock)
                .bind(&new.side)
                .bind(i64::from(new.rated))
                .bind(&new.message)
                .bind(new.created_at)
                .bind(new.expires_at)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    /// A challenge by id.
    pub async fn find(&self, id: &str) -> Result<Option<ChallengeRow>, PlayerError> {
        let statement = format!("SELECT {COLUMNS} FROM challenges WHERE id = $1");
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(sqlx::AssertSqlSafe(statement))
                .bind(id)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|row| challenge_of(&row)).transpose()?)
        })
    }

    /// The pending challenges a player sent or was sent, newest first (at most the bounds'
    /// worth of each).
    pub async fn pending_of(
        &self,
        player: &str,
        now: UnixMs,
    ) -> Result<Vec<ChallengeRow>, PlayerError> {
        let limit = i64::from(self.bounds.pending_per_player + self.bounds.pending_per_challenged);
        let statement = format!(
            "SELECT {COLUMNS} FROM challenges WHERE (challenger = $1 OR challenged = $1) \
             AND status = 'pending' AND expires_at > $2 ORDER BY created_at DESC, id LIMIT $3"
        );
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(sqlx::AssertSqlSafe(statement))
                .bind(player)
                .bind(now)
                .bind(limit)
                .fetch_all(pool)
                .await?;
            Ok(rows
                .iter()
                .map(challenge_of)
                .collect::<Result<Vec<_>, _>>()?)
        })
    }

    /// Ends a pending challenge as `outcome` says; `false` if it was not pending (or, to be
    /// accepted, had expired).
    pub async fn decide(
        &self,
        id: &str,
        outcome: Outcome<'_>,
        now: UnixMs,
    ) -> Result<bool, PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            let query = match outcome {
                Outcome::Accepted {
                    room,
                    challenger_token,
                } => sqlx::query(ACCEPT)
                    .bind(room.to_owned())
                    .bind(challenger_token.to_owned())
                    .bind(now)
                    .bind(id),
                Outcome::Declined { reason } => sqlx::query(DECLINE)
                    .bind(reason.to_owned())
                    .bind(now)
                    .bind(id),
                Outcome::Cancelled => sqlx::query(CANCEL).bind(now).bind(id),
            };
            Ok(query.execute(pool).await?.rows_affected() == 1)
        })
    }

    /// Marks pending challenges past their expiry expired (up to 100 a call); answers them.
    pub async fn expire_due(&self, now: UnixMs) -> Result<Vec<ChallengeRow>, PlayerError> {
        let due: Vec<String> = on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(DUE).bind(now).fetch_all(pool).await?;
            rows.iter()
                .map(|row| row.text_at(0))
                .collect::<Result<_, _>>()?
        });
        let mut expired = Vec::new();
        for id in due {
            let changed = on_pool!(self, |pool, _begin, _lock| {
                let done = sqlx::query(EXPIRE)
                    .bind(now)
                    .bind(&id)
                    .execute(pool)
                    .await?;
                done.rows_affected() == 1
            });
            if changed && let Some(row) = self.find(&id).await? {
                expired.push(row);
            }
        }
        Ok(expired)
    }

    /// The pending live challenges (`live`: a live challenge's whole life, ms): id,
    /// challenger, made at.
    pub async fn pending_live(
        &self,
        live: i64,
    ) -> Result<Vec<(String, String, UnixMs)>, PlayerError> {
        Ok(on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(PENDING_LIVE).bind(live).fetch_all(pool).await?;
            rows.iter()
                .map(|row| Ok((row.text_at(0)?, row.text_at(1)?, row.i64_at(2)?)))
                .collect::<Result<_, sqlx::Error>>()?
        }))
    }

    /// A pending challenge now expires at `at`.
    pub async fn keep_until(&self, id: &str, at: UnixMs) -> Result<(), PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            sqlx::query(KEEP_UNTIL)
                .bind(at)
                .bind(id)
                .execute(pool)
                .await?;
        });
        Ok(())
    }

    /// Tells every instance on PostgreSQL that challenge `id` changed (its lobby reads it);
    /// `false` on SQLite, where the one instance tells its own pages directly.
    pub async fn announce(&self, id: &str) -> Result<bool, PlayerError> {
        use crate::store::postgres::listener::{CHANNEL, challenge_payload};
        match &self.pool {
            Pool::Sqlite(_) => Ok(false),
            Pool::Pg(pool) => {
                sqlx::query("SELECT pg_notify($1, $2)")
                    .bind(CHANNEL)
                    .bind(challenge_payload(id))
                    .execute(pool)
                    .await?;
                Ok(true)
            }
        }
    }

    /// The room of a game `player` sits in and plays now (started, not over), the latest.
    pub async fn playing(&self, player: &str) -> Result<Option<String>, PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(PLAYING)
                .bind(player)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|row| row.text_at(0)).transpose()?)
        })
    }

    /// Whether either of two players blocked the other.
    pub async fn blocked_either(&self, a: &str, b: &str) -> Result<bool, PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            let count: i64 = sqlx::query(BLOCKED_EITHER)
                .bind(a)
                .bind(b)
                .fetch_one(pool)
                .await?
                .try_get(0)?;
            Ok(count > 0)
        })
    }

    /// `player` blocks `other` (again: nothing changes).
    pub async fn block(&self, player: &str, other: &str, now: UnixMs) -> Result<(), SocialError> {
        self.add(List::Blocks, player, other, now, self.bounds.blocks)
            .await
            .map_err(|bound| {
                bound.map_or(SocialError::TooManyBlocks(self.bounds.blocks), Into::into)
            })
    }

    /// `player` follows `other` (again: nothing changes).
    pub async fn follow(&self, player: &str, other: &str, now: UnixMs) -> Result<(), SocialError> {
        self.add(List::Follows, player, other, now, self.bounds.follows)
            .await
            .map_err(|bound| {
                bound.map_or(SocialError::TooManyFollows(self.bounds.follows), Into::into)
            })
    }

    pub async fn unblock(&self, player: &str, other: &str) -> Result<bool, PlayerError> {
        self.remove(List::Blocks, player, other).await
    }

    pub async fn unfollow(&self, player: &str, other: &str) -> Result<bool, PlayerError> {
        self.remove(List::Follows, player, other).await
    }

    /// The players `player` blocks, oldest first.
    pub async fn blocks(&self, player: &str) -> Result<Vec<String>, PlayerError> {
        self.list(List::Blocks, player).await
    }

    /// The players `player` follows, oldest first.
    pub async fn follows(&self, player: &str) -> Result<Vec<String>, PlayerError> {
        self.list(List::Follows, player).await
    }

    /// Adds to a list under its bound; `Err(None)` when the bound refuses it.
    async fn add(
        &self,
        list: List,
        player: &str,
        other: &str,
        now: UnixMs,
        bound: u32,
    ) -> Result<(), Option<sqlx::Error>> {
        let [count, insert, ..] = list.statements();
        on_pool!(self, |pool, begin, lock| {
            let mut tx = pool.begin_with(begin).await?;
            sqlx::query(sqlx::AssertSqlSafe(format!("{LOCK_PLAYER}{lock}")))
                .bind(player)
                .fetch_optional(&mut *tx)
                .await?;
            let held: i64 = sqlx::query(count)
                .bind(player)
                .fetch_one(&mut *tx)
                .await?
                .try_get(0)?;
            if held >= i64::from(bound) {
                return Err(None);
            }
            sqlx::query(insert)
                .bind(player)
                .bind(other)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(())
        })
    }

    async fn remove(&self, list: List, player: &str, other: &str) -> Result<bool, PlayerError> {
        let [_, _, delete, _] = list.statements();
        on_pool!(self, |pool, _begin, _lock| {
            let done = sqlx::query(delete)
                .bind(player)
                .bind(other)
                .execute(pool)
                .await?;
            Ok(done.rows_affected() == 1)
        })
    }

    async fn list(&self, list: List, player: &str) -> Result<Vec<String>, PlayerError> {
        let [.., select] = list.statements();
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(select).bind(player).fetch_all(pool).await?;
            Ok(rows
                .iter()
                .map(|row| row.text_at(0))
                .collect::<Result<Vec<_>, _>>()?)
        })
    }
}

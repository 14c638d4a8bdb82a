//! What operators read and change by hand (`senet admin`, issue 32): bans, the audit log, and
//! the list of live rooms. Their own concern, on their own small pool, beside the game store.
//! A ban names a network (an address is a /32 or /128) and lasts until a time; lifting one
//! keeps its row. Every operator action writes its audit row in the same transaction as the
//! change, so nothing is done that is not recorded: a room's end is appended to its log by the
//! room layer, with its audit row as work in that commit ([`AuditOnCommit`]). The instances read
//! the active bans every few seconds ([`crate::server`]'s ban list), the same way on both
//! backends; on SQLite they also read which rooms' logs the operator appended to
//! ([`BanStore::appends_after`]: games ended, messages hidden).

use std::str::FromStr;

use async_trait::async_trait;

use ipnet::IpNet;
use serde::Serialize;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{PgPool, SqlitePool};

use super::InCommit;
use crate::protocol::UnixMs;

/// A ban as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct BanRow {
    pub id: i64,
    pub network: String,
    pub until_ms: UnixMs,
    pub reason: String,
    pub created_by: String,
    pub created_at: UnixMs,
}

/// One operator action as recorded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct AuditRow {
    pub id: i64,
    pub at: UnixMs,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub reason: String,
}

/// A game in progress (started, not over), as the log has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct LiveRoomRow {
    pub room: String,
    pub mode: String,
    pub created_at: UnixMs,
    /// The version of its last event.
    pub v: i64,
    /// When its last event was committed.
    pub last_at: UnixMs,
}

/// A room whose log an operator appended to (an end, a hidden message), as the audit log has
/// it, with its log's last version now.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct AppendedRow {
    /// The audit row's id: the next poll asks for those after it.
    pub id: i64,
    pub room: String,
    pub v: Option<i64>,
}

/// Who does what, why, when: what every operator action carries.
#[derive(Clone, Debug)]
pub struct Operator {
    pub name: String,
    pub reason: String,
    pub at: UnixMs,
}

#[derive(Debug, thiserror::Error)]
pub enum BansError {
    #[error("unsupported database URL: expected sqlite:, postgres: or postgresql:")]
    UnsupportedUrl,
    #[error("no ban {0} is in force")]
    NoSuchBan(i64),
    #[error("no player {0}: `senet admin timeout` takes a player's public id")]
    NoSuchPlayer(String),
    #[error("room {0} has no message {1}")]
    NoSuchMessage(String, crate::protocol::Version),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// The bans and audit tables of one database.
#[derive(Clone, Debug)]
pub enum BanStore {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// This backend's SQL.
struct Sql {
    insert_ban: &'static str,
    lift_ban: &'static str,
    active_bans: &'static str,
    insert_audit: &'static str,
    audit: &'static str,
    live_rooms: &'static str,
    last_audit: &'static str,
    appends_after: &'static str,
}

/// Rooms with a `started` event and no `game-over`, the most recently active first; the same
/// SQL on both backends but for the placeholder.
macro_rules! live_rooms_sql {
    ($limit:literal) => {
        concat!(
            "SELECT r.id AS room, r.mode, r.created_at, MAX(e.v) AS v, MAX(e.at) AS last_at \
             FROM rooms r JOIN events e ON e.room = r.id \
             WHERE EXISTS (SELECT 1 FROM events s WHERE s.room = r.id AND s.kind = 'started') \
             AND NOT EXISTS (SELECT 1 FROM events o WHERE o.room = r.id AND o.kind = 'game-over') \
             GROUP BY r.id, r.mode, r.created_at ORDER BY last_at DESC LIMIT ",
            $limit
        )
    };
}

/// The audit rows after a given id of the actions that append to a room's log from outside the
/// instances (`senet admin end`, `senet admin hide`: each target starts with the room's id), with
/// the room and its log's last version now; `$room` is this backend's expression for the
/// target's first word, `$after` its placeholder.
macro_rules! appends_after_sql {
    ($room:literal, $after:literal) => {
        concat!(
            "SELECT o.id, o.room, (SELECT MAX(v) FROM events e WHERE e.room = o.room) AS v \
             FROM (SELECT a.id, ",
            $room,
            " AS room FROM audit a WHERE a.id > ",
            $after,
            " AND a.action IN ('end', 'chat-hide')) o ORDER BY o.id"
        )
    };
}

const SQLITE: Sql = Sql {
    insert_ban: "INSERT INTO bans (network, until_ms, reason, created_by, created_at) \
                 VALUES (?, ?, ?, ?, ?) RETURNING id",
    lift_ban: "UPDATE bans SET lifted_at = ? WHERE id = ? AND lifted_at IS NULL AND until_ms > ? \
               RETURNING network",
    active_bans: "SELECT id, network, until_ms, reason, created_by, created_at FROM bans \
                  WHERE lifted_at IS NULL AND until_ms > ? ORDER BY id",
    insert_audit: "INSERT INTO audit (at, actor, action, target, reason) VALUES (?, ?, ?, ?, ?)",
    audit: "SELECT id, at, actor, action, target, reason FROM audit ORDER BY id DESC LIMIT ?",
    live_rooms: live_rooms_sql!("?"),
    last_audit: "SELECT COALESCE(MAX(id), 0) FROM audit",
    appends_after: appends_after_sql!(
        "substr(a.target || ' ', 1, instr(a.target || ' ', ' ') - 1)",
        "?"
    ),
};

const POSTGRES: Sql = Sql {
    insert_ban: "INSERT INTO bans (network, until_ms, reason, created_by, created_at) \
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
    lift_ban: "UPDATE bans SET lifted_at = $1 WHERE id = $2 AND lifted_at IS NULL \
               AND until_ms > $3 RETURNING network",
    active_bans: "SELECT id, network, until_ms, reason, created_by, created_at FROM bans \
                  WHERE lifted_at IS NULL AND until_ms > $1 ORDER BY id",
    insert_audit: "INSERT INTO audit (at, actor, action, target, reason) \
                   VALUES ($1, $2, $3, $4, $5)",
    audit: "SELECT id, at, actor, action, target, reason FROM audit ORDER BY id DESC LIMIT $1",
    live_rooms: live_rooms_sql!("$1"),
    last_audit: "SELECT COALESCE(MAX(id), 0) FROM audit",
    appends_after: appends_after_sql!("split_part(a.target, ' ', 1)", "$1"),
};

/// Runs `$body` with `$tx` a transaction and `$sql` the SQL of whichever backend `$store` is.
/// On SQLite the transaction takes the write lock as it begins (`BEGIN IMMEDIATE`), waiting for
/// it under the busy timeout: a deferred one that read first could not take it later while the
/// server writes (`database is locked` at once, whatever the timeout; issue 44).
macro_rules! in_transaction {
    ($store:expr, |$tx:ident, $sql:ident| $body:block) => {
        match $store {
            BanStore::Sqlite(pool) => {
                let mut $tx = pool.begin_with("BEGIN IMMEDIATE").await?;
                let $sql = &SQLITE;
                let out = $body;
                $tx.commit().await?;
                out
            }
            BanStore::Postgres(pool) => {
                let mut $tx = pool.begin().await?;
                let $sql = &POSTGRES;
                let out = $body;
                $tx.commit().await?;
                out
            }
        }
    };
}

/// `$body` with `$pool` the pool and `$sql` the SQL of whichever backend `$store` is.
macro_rules! on_pool {
    ($store:expr, |$pool:ident, $sql:ident| $body:expr) => {
        match $store {
            BanStore::Sqlite($pool) => {
                let $sql = &SQLITE;
                $body
            }
            BanStore::Postgres($pool) => {
                let $sql = &POSTGRES;
                $body
            }
        }
    };
}

/// Writes one audit row inside the transaction `$tx`: works for either backend's.
macro_rules! audit {
    ($tx:ident, $sql:ident, $by:expr, $action:expr, $target:expr) => {
        sqlx::query($sql.insert_audit)
            .bind($by.at)
            .bind($by.name.as_str())
            .bind($action)
            .bind($target)
            .bind($by.reason.as_str())
            .execute(&mut *$tx)
            .await?
    };
}

// After the macros above, which it uses.
pub mod moderation;

impl BanStore {
    /// Connects to the database `url` names (already migrated by `senet serve`), with one
    /// connection: bans are read every few seconds and written by hand.
    pub async fn open(url: &str) -> Result<BanStore, BansError> {
        if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(false)
                .busy_timeout(std::time::Duration::from_secs(5));
            let pool = crate::store::sqlite::pool::pool_options()
                .max_connections(1)
                .connect_with(options)
                .await?;
            Ok(BanStore::Sqlite(pool))
        } else if super::is_postgres_url(url) {
            let pool = PgPoolOptions::new().max_connections(1).connect(url).await?;
            Ok(BanStore::Postgres(pool))
        } else {
            Err(BansError::UnsupportedUrl)
        }
    }

    /// Bans `network` until `until`, recorded as `by`'s action; returns the ban's id.
    pub async fn ban(
        &self,
        network: IpNet,
        until: UnixMs,
        by: &Operator,
    ) -> Result<i64, BansError> {
        let network = network.trunc().to_string();
        let id = in_transaction!(self, |tx, sql| {
            let id: i64 = sqlx::query_scalar(sql.insert_ban)
                .bind(&network)
                .bind(until)
                .bind(&by.reason)
                .bind(&by.name)
                .bind(by.at)
                .fetch_one(&mut *tx)
                .await?;
            audit!(tx, sql, by, "ban", format!("{network} until {until}"));
            id
        });
        Ok(id)
    }

    /// Lifts ban `id` (one still in force), recorded as `by`'s action.
    pub async fn lift(&self, id: i64, by: &Operator) -> Result<(), BansError> {
        in_transaction!(self, |tx, sql| {
            let network: Option<String> = sqlx::query_scalar(sql.lift_ban)
                .bind(by.at)
                .bind(id)
                .bind(by.at)
                .fetch_optional(&mut *tx)
                .await?;
            let network = network.ok_or(BansError::NoSuchBan(id))?;
            audit!(tx, sql, by, "lift", format!("ban {id} ({network})"));
        });
        Ok(())
    }

    /// The bans in force at `now`.
    pub async fn active(&self, now: UnixMs) -> Result<Vec<BanRow>, BansError> {
        Ok(on_pool!(self, |pool, sql| {
            sqlx::query_as(sql.active_bans)
                .bind(now)
                .fetch_all(pool)
                .await?
        }))
    }

    /// Up to `limit` games in progress, the most recently active first.
    pub async fn live_rooms(&self, limit: i64) -> Result<Vec<LiveRoomRow>, BansError> {
        Ok(on_pool!(self, |pool, sql| {
            sqlx::query_as(sql.live_rooms)
                .bind(limit)
                .fetch_all(pool)
                .await?
        }))
    }

    /// The last `limit` operator actions, newest first.
    pub async fn audit_log(&self, limit: i64) -> Result<Vec<AuditRow>, BansError> {
        Ok(on_pool!(self, |pool, sql| {
            sqlx::query_as(sql.audit)
                .bind(limit)
                .fetch_all(pool)
                .await?
        }))
    }

    /// The id of the last audit row: where polling for the operator's appends starts.
    pub async fn last_audit_id(&self) -> Result<i64, BansError> {
        Ok(on_pool!(self, |pool, sql| {
            sqlx::query_scalar(sql.last_audit).fetch_one(pool).await?
        }))
    }

    /// Rooms the operator appended to (ended, hid a message in) in the audit rows after
    /// `after`, in order.
    pub async fn appends_after(&self, after: i64) -> Result<Vec<AppendedRow>, BansError> {
        Ok(on_pool!(self, |pool, sql| {
            sqlx::query_as(sql.appends_after)
                .bind(after)
                .fetch_all(pool)
                .await?
        }))
    }
}

/// An operator action on a room's log (ending its game), recorded in the transaction that
/// appends to the log ([`super::RoomLog::append_with`]): the end is never without its audit row.
pub struct AuditOnCommit {
    pub by: Operator,
    pub action: &'static str,
    pub target: String,
}

#[async_trait]
impl InCommit for AuditOnCommit {
    async fn on_sqlite(&self, connection: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error> {
        let (by, sql) = (&self.by, &SQLITE);
        audit!(connection, sql, by, self.action, self.target.as_str());
        Ok(())
    }

    async fn on_postgres(&self, connection: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
        let (by, sql) = (&self.by, &POSTGRES);
        audit!(connection, sql, by, self.action, self.target.as_str());
        Ok(())
    }
}

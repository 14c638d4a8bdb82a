//! What operators read and change by hand (`senet admin`, issue 32): bans, the audit log, and
//! the list of live rooms. Their own concern, on their own small pool, beside the game store. A ban names a network (an address is a /32 or /128) and
//! lasts until a time; lifting one keeps its row. Every operator action writes its audit row in
//! the same transaction as the change, so nothing is done that is not recorded. The instances
//! read the active bans every few seconds ([`crate::server`]'s ban list), the same way on both
//! backends.

use std::str::FromStr;

use ipnet::IpNet;
use serde::Serialize;
use sqlx::postgres::PgPoolOptions;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use sqlx::{PgPool, SqlitePool};

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
};

/// Runs `$body` with `$tx` a transaction and `$sql` the SQL of whichever backend `$store` is.
macro_rules! in_transaction {
    ($store:expr, |$tx:ident, $sql:ident| $body:block) => {
        match $store {
            BanStore::Sqlite(pool) => {
                let mut $tx = pool.begin().await?;
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
            let pool = SqlitePoolOptions::new()
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
        Ok(match self {
            BanStore::Sqlite(pool) => {
                sqlx::query_as(SQLITE.active_bans)
                    .bind(now)
                    .fetch_all(pool)
                    .await?
            }
            BanStore::Postgres(pool) => {
                sqlx::query_as(POSTGRES.active_bans)
                    .bind(now)
                    .fetch_all(pool)
                    .await?
            }
        })
    }

    /// Up to `limit` games in progress, the most recently active first.
    pub async fn live_rooms(&self, limit: i64) -> Result<Vec<LiveRoomRow>, BansError> {
        Ok(match self {
            BanStore::Sqlite(pool) => {
                sqlx::query_as(SQLITE.live_rooms)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
            }
            BanStore::Postgres(pool) => {
                sqlx::query_as(POSTGRES.live_rooms)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
            }
        })
    }

    /// The last `limit` operator actions, newest first.
    pub async fn audit_log(&self, limit: i64) -> Result<Vec<AuditRow>, BansError> {
        Ok(match self {
            BanStore::Sqlite(pool) => {
                sqlx::query_as(SQLITE.audit)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
            }
            BanStore::Postgres(pool) => {
                sqlx::query_as(POSTGRES.audit)
                    .bind(limit)
                    .fetch_all(pool)
                    .await?
            }
        })
    }
}

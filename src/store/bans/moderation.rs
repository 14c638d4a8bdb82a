//! Chat moderation on the operators' store (issue 33): reports of a room's last messages, kept
//! for the operators (one per reporter and room — a side, a spectator's identity, the anonymous
//! spectators together — and at most [`MAX_REPORTS_PER_ROOM`] spectators' a room, so strangers
//! cannot fill the table nor crowd out the players', issue 44); operators' time-outs of a player from chat; and hiding a message, which appends a
//! `chat-hidden` event to the room's log (with `pg_notify` on PostgreSQL, so every instance
//! holding the room passes it on; a SQLite server hears of it by polling the audit log, see
//! `store::sqlite::news`).
//! Each operator action writes its audit row in the same transaction as the change.

use serde::Serialize;

// `in_transaction!` names its backends' SQL as `SQLITE` and `POSTGRES` where it is used.
use super::{BanStore, BansError, Operator, POSTGRES, SQLITE};
use crate::protocol::{Event, UnixMs, Version};
use crate::store::postgres::listener;

/// Spectators' reports kept per room (the players' are kept whatever the spectators filed).
pub const MAX_REPORTS_PER_ROOM: i64 = 10;

/// What became of a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filed {
    Yes,
    /// This reporter reported this room already.
    Again,
    /// The room has [`MAX_REPORTS_PER_ROOM`] spectators' reports.
    Full,
}

/// A report as the server files it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Report {
    pub room: String,
    pub at: UnixMs,
    /// `black`, `white`, a spectator's player id, or `spectator` for one without an identity.
    pub reporter: String,
    pub player: Option<String>,
    pub reason: String,
    /// The room's last messages, as JSON.
    pub lines: String,
}

/// A report as stored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct ReportRow {
    pub id: i64,
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub report: Report,
}

struct ChatSql {
    insert_report: &'static str,
    reported: &'static str,
    reports: &'static str,
    insert_timeout: &'static str,
    player_exists: &'static str,
    timed_out: &'static str,
    said_at: &'static str,
    last_v: &'static str,
    insert_event: &'static str,
    /// PostgreSQL tells every instance of the append (see `store::postgres::listener`).
    notify: Option<&'static str>,
}

const CHAT_SQLITE: ChatSql = ChatSql {
    insert_report: "INSERT INTO chat_reports (room, at, reporter, player, reason, lines) \
                    SELECT ?1, ?2, ?3, ?4, ?5, ?6 \
                    WHERE NOT EXISTS (SELECT 1 FROM chat_reports WHERE room = ?1 AND reporter = ?3) \
                    AND (?3 IN ('black', 'white') OR (SELECT COUNT(*) FROM chat_reports \
                    WHERE room = ?1 AND reporter NOT IN ('black', 'white')) < ?7)",
    reported: "SELECT COUNT(*) FROM chat_reports WHERE room = ? AND reporter = ?",
    reports: "SELECT id, room, at, reporter, player, reason, lines FROM chat_reports \
              ORDER BY id DESC LIMIT ?",
    insert_timeout: "INSERT INTO chat_timeouts (player, until_ms, reason, created_by, created_at) \
                     VALUES (?, ?, ?, ?, ?) RETURNING id",
    timed_out: "SELECT MAX(until_ms) FROM chat_timeouts WHERE player = ? AND until_ms > ?",
    player_exists: "SELECT COUNT(*) FROM players WHERE id = ?",
    said_at: "SELECT kind FROM events WHERE room = ? AND v = ?",
    last_v: "SELECT COALESCE(MAX(v), 0) FROM events WHERE room = ?",
    insert_event: "INSERT INTO events (room, v, at, kind, data) VALUES (?, ?, ?, ?, ?)",
    notify: None,
};

const CHAT_POSTGRES: ChatSql = ChatSql {
    insert_report: "INSERT INTO chat_reports (room, at, reporter, player, reason, lines) \
                    SELECT $1, $2, $3, $4, $5, $6 \
                    WHERE NOT EXISTS (SELECT 1 FROM chat_reports WHERE room = $1 AND reporter = $3) \
                    AND ($3 IN ('black', 'white') OR (SELECT COUNT(*) FROM chat_reports \
                    WHERE room = $1 AND reporter NOT IN ('black', 'white')) < $7)",
    reported: "SELECT COUNT(*) FROM chat_reports WHERE room = $1 AND reporter = $2",
    reports: "SELECT id, room, at, reporter, player, reason, lines FROM chat_reports \
              ORDER BY id DESC LIMIT $1",
    insert_timeout: "INSERT INTO chat_timeouts (player, until_ms, reason, created_by, created_at) \
                     VALUES ($1, $2, $3, $4, $5) RETURNING id",
    timed_out: "SELECT MAX(until_ms) FROM chat_timeouts WHERE player = $1 AND until_ms > $2",
    player_exists: "SELECT COUNT(*) FROM players WHERE id = $1",
    said_at: "SELECT kind FROM events WHERE room = $1 AND v = $2",
    last_v: "SELECT COALESCE(MAX(v), 0) FROM events WHERE room = $1",
    insert_event: "INSERT INTO events (room, v, at, kind, data) VALUES ($1, $2, $3, $4, $5)",
    notify: Some("SELECT pg_notify($1, $2)"),
};

/// Runs `$query` (a `sqlx::query*` built from `$sql`, this backend's [`ChatSql`]) with `$run`
/// on whichever pool `$store` holds, then `$then` on the outcome if given.
macro_rules! on_pool {
    ($store:expr, |$sql:ident| $query:expr, $run:ident $(, $then:ident)?) => {
        match $store {
            BanStore::Sqlite(pool) => {
                let $sql = &CHAT_SQLITE;
                $query.$run(pool).await?$(.$then())?
            }
            BanStore::Postgres(pool) => {
                let $sql = &CHAT_POSTGRES;
                $query.$run(pool).await?$(.$then())?
            }
        }
    };
}

/// Each backend's [`ChatSql`], found from the transaction `in_transaction!` opened.
trait ChatBackend: sqlx::Database {
    const SQL: &'static ChatSql;
}

impl ChatBackend for sqlx::Sqlite {
    const SQL: &'static ChatSql = &CHAT_SQLITE;
}

impl ChatBackend for sqlx::Postgres {
    const SQL: &'static ChatSql = &CHAT_POSTGRES;
}

fn chat_sql<DB: ChatBackend>(_: &sqlx::Transaction<'_, DB>) -> &'static ChatSql {
    DB::SQL
}

impl BanStore {
    /// Files a report, once per reporter and room; a spectator's only while the room has fewer
    /// than [`MAX_REPORTS_PER_ROOM`] spectators' reports.
    pub async fn report(&self, report: &Report) -> Result<Filed, BansError> {
        let filed = on_pool!(
            self,
            |sql| sqlx::query(sql.insert_report)
                .bind(&report.room)
                .bind(report.at)
                .bind(&report.reporter)
                .bind(&report.player)
                .bind(&report.reason)
                .bind(&report.lines)
                .bind(MAX_REPORTS_PER_ROOM),
            execute,
            rows_affected
        );
        if filed == 1 {
            return Ok(Filed::Yes);
        }
        let earlier: i64 = on_pool!(
            self,
            |sql| sqlx::query_scalar(sql.reported)
                .bind(&report.room)
                .bind(&report.reporter),
            fetch_one
        );
        Ok(if earlier > 0 {
            Filed::Again
        } else {
            Filed::Full
        })
    }

    /// The last `limit` reports, newest first.
    pub async fn reports(&self, limit: i64) -> Result<Vec<ReportRow>, BansError> {
        Ok(on_pool!(
            self,
            |sql| sqlx::query_as(sql.reports).bind(limit),
            fetch_all
        ))
    }

    /// Times `player` (one the players' table knows) out of chat until `until`, recorded as
    /// `by`'s action; the time-out's id.
    pub async fn time_out(
        &self,
        player: &str,
        until: UnixMs,
        by: &Operator,
    ) -> Result<i64, BansError> {
        let id = in_transaction!(self, |tx, audit_sql| {
            let sql = chat_sql(&tx);
            let known: i64 = sqlx::query_scalar(sql.player_exists)
                .bind(player)
                .fetch_one(&mut *tx)
                .await?;
            if known == 0 {
                return Err(BansError::NoSuchPlayer(player.to_string()));
            }
            let id: i64 = sqlx::query_scalar(sql.insert_timeout)
                .bind(player)
                .bind(until)
                .bind(&by.reason)
                .bind(&by.name)
                .bind(by.at)
                .fetch_one(&mut *tx)
                .await?;
            audit!(
                tx,
                audit_sql,
                by,
                "chat-timeout",
                format!("{player} until {until}")
            );
            id
        });
        Ok(id)
    }

    /// Until when `player` is timed out of chat at `now`, if they are.
    pub async fn timed_out_until(
        &self,
        player: &str,
        now: UnixMs,
    ) -> Result<Option<UnixMs>, BansError> {
        Ok(on_pool!(
            self,
            |sql| sqlx::query_scalar(sql.timed_out).bind(player).bind(now),
            fetch_one
        ))
    }

    /// Hides message `v` of `room` (a `said` event): appends `chat-hidden` to the room's log,
    /// recorded as `by`'s action; the event's version.
    pub async fn hide(&self, room: &str, v: Version, by: &Operator) -> Result<Version, BansError> {
        let (kind, data) = Event::ChatHidden { message: v }.to_parts();
        let hidden = in_transaction!(self, |tx, audit_sql| {
            let sql = chat_sql(&tx);
            let said: Option<String> = sqlx::query_scalar(sql.said_at)
                .bind(room)
                .bind(v as i64)
                .fetch_optional(&mut *tx)
                .await?;
            if said.as_deref() != Some("said") {
                return Err(BansError::NoSuchMessage(room.to_string(), v));
            }
            let last: i64 = sqlx::query_scalar(sql.last_v)
                .bind(room)
                .fetch_one(&mut *tx)
                .await?;
            sqlx::query(sql.insert_event)
                .bind(room)
                .bind(last + 1)
                .bind(by.at)
                .bind(&kind)
                .bind(&data)
                .execute(&mut *tx)
                .await?;
            if let Some(notify) = sql.notify {
                sqlx::query(notify)
                    .bind(listener::CHANNEL)
                    .bind(listener::payload(room, (last + 1) as Version))
                    .execute(&mut *tx)
                    .await?;
            }
            audit!(
                tx,
                audit_sql,
                by,
                "chat-hide",
                format!("{room} message {v}")
            );
            (last + 1) as Version
        });
        Ok(hidden)
    }
}

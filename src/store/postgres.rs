//! The store for several instances ([`RoomLog`], [`SeekList`] and [`Cluster`]): PostgreSQL, selected by a
//! `postgres://` or `postgresql://` URL, with the migrations in
//! `migrations/postgres/` applied on open.
//!
//! Appends are committed in batches ([`GroupCommit`]): one statement inserts
//! every room's waiting events and sends, in the same transaction, one
//! `NOTIFY` on [`listener::CHANNEL`] per room, so other instances holding a
//! room learn that it moved on (see [`listener`]). The notification carries
//! only the room id and its new last version; listeners read the events
//! themselves from the log. Which
//! players each instance holds connections of, and which timed rooms' clocks
//! it keeps, is kept in advisory locks ([`super::presence`]). Each instance's spectator counts
//! travel on the same channel ([`Cluster::announce_spectators`]).

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, QueryBuilder};

pub mod listener;

use super::append::Append;
use super::group_commit::{Committer, GroupCommit};
use super::presence::PresenceLocks;
use super::rows::{self, Statements, push_insert_events};
use super::seeks::{self, Pairing, SeekStatements};
use super::summaries::{self, push_upsert};
use super::sweep;
use super::tournaments::{self, TournamentLog, TournamentRow};
use super::turns::{self, Turn, TurnOf};
use super::{
    Cluster, InCommit, InstanceId, RoomLog, RoomRow, SeatRow, SeekCaps, SeekList, SeekRow,
    StoreError, StoredEvent, Sweep,
};
use crate::engine::Side;
use crate::protocol::{SeekGone, UnixMs, Version};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Connections per instance: enough for many rooms writing at once while
/// leaving room on a default server (100 connections) for several instances.
const MAX_CONNECTIONS: u32 = 10;

/// How long PostgreSQL lets a transaction of ours wait on us before it ends our session. Ours
/// never wait on anything but the database, so one that waits this long is an instance that
/// stopped (paused, hung) mid-transaction: its locks (an append's rows, which every other
/// instance's append to the room waits for) would be held for as long as it is stopped. Ended,
/// the transaction is rolled back and the instance's call fails when it wakes, `unavailable`
/// (`pause` in docs/RELIABILITY.md: a room stood still on the other instance for the whole pause).
const IDLE_IN_TRANSACTION: &str = "2s";

pub struct PgStore {
    pool: PgPool,
    /// Every append goes through one writer per instance, which commits what
    /// is waiting in one transaction (one WAL flush for the batch).
    appends: GroupCommit,
    presence: PresenceLocks,
}

/// Migrates the database to this binary's schema ([`super::schema`]): what every store on
/// this database (the rooms', the players') does when it opens.
pub async fn migrate(pool: &PgPool) -> Result<(), StoreError> {
    super::schema::migrate(pool, &MIGRATOR).await
}

/// What opening the database at `url` would migrate, without doing it.
pub(super) async fn migration_plan(url: &str) -> Result<super::schema::Plan, StoreError> {
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .connect_with(connect_options(url)?)
        .await?;
    super::schema::plan(&pool, &MIGRATOR).await
}

impl PgStore {
    /// Connects to the database at `url` and migrates it. The schema is the
    /// connection's `search_path` (set it in the URL with
    /// `?options=-c%20search_path%3Dname` to keep several deployments apart).
    pub async fn open(url: &str) -> Result<PgStore, StoreError> {
        let options = connect_options(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            // No ping before each use: it is a round trip more for every call (200 ms each
            // on a slow network, docs/RELIABILITY.md). A connection that died meanwhile fails
            // its call, `unavailable`, and sqlx makes a new one for the next.
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        // The migrator holds an advisory lock, so instances starting together
        // migrate once.
        migrate(&pool).await?;
        Ok(PgStore {
            appends: GroupCommit::start(Appends { pool: pool.clone() }),
            pool,
            presence: PresenceLocks::new(&options),
        })
    }
}

/// How every session of the store connects to the database at `url`.
pub fn connect_options(url: &str) -> Result<PgConnectOptions, StoreError> {
    Ok(PgConnectOptions::from_str(url)?
        .options([("idle_in_transaction_session_timeout", IDLE_IN_TRANSACTION)]))
}

/// This backend's SQL for the statements every backend runs alike.
pub(super) const SQL: Statements = Statements {
    insert_room: "INSERT INTO rooms (id, mode, seed, created_at, black_token_hash, \
                  black_client_seed, white_token_hash, white_client_seed, clock_initial, clock_increment) \
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    select_room: "SELECT id, mode, seed, created_at, black_token_hash, black_client_seed, \
                  white_token_hash, white_client_seed, clock_initial, clock_increment \
                  FROM rooms WHERE id = $1",
    take_black_seat: "UPDATE rooms SET black_token_hash = $1, black_client_seed = $2 \
                      WHERE id = $3 AND black_token_hash IS NULL",
    take_white_seat: "UPDATE rooms SET white_token_hash = $1, white_client_seed = $2 \
                      WHERE id = $3 AND white_token_hash IS NULL",
    events_after: "SELECT v, at, kind, data FROM events WHERE room = $1 AND v > $2 ORDER BY v",
    select_analysis: "SELECT data FROM analyses WHERE room = $1",
    insert_analysis: "INSERT INTO analyses (room, data) VALUES ($1, $2) ON CONFLICT (room) DO NOTHING",
    select_unstarted: "SELECT id FROM rooms WHERE created_at < $1 AND NOT EXISTS \
                       (SELECT 1 FROM events WHERE room = rooms.id AND kind = 'started') LIMIT $2",
    // An append checks its room's row (the foreign key) with a lock that this one excludes: no
    // event can be appended between this check and the deletion.
    select_timed_in_play: "SELECT id FROM rooms WHERE clock_initial IS NOT NULL AND id > $1 \
                           AND (clock_increment <> 0 OR clock_initial < 86400) \
                           AND EXISTS (SELECT 1 FROM events WHERE room = rooms.id AND kind = 'started') \
                           AND NOT EXISTS \
                           (SELECT 1 FROM events WHERE room = rooms.id AND kind = 'game-over') \
                           ORDER BY id LIMIT $2",
    lock_unstarted: "SELECT id FROM rooms WHERE id = $1 AND created_at < $2 AND NOT EXISTS \
                     (SELECT 1 FROM events WHERE room = $1 AND kind = 'started') FOR UPDATE",
    select_forgotten: "SELECT id FROM rooms WHERE mode IN ('local', 'ai') AND created_at < $1 \
                       AND NOT EXISTS (SELECT 1 FROM room_players WHERE room = rooms.id) \
                       AND (SELECT MAX(at) FROM events WHERE room = rooms.id) < $1 LIMIT $2",
    lock_forgotten: "SELECT id FROM rooms WHERE id = $1 \
                     AND NOT EXISTS (SELECT 1 FROM room_players WHERE room = $1) \
                     AND (SELECT MAX(at) FROM events WHERE room = $1) < $2 FOR UPDATE",
    delete_events: "DELETE FROM events WHERE room = $1",
    delete_analysis: "DELETE FROM analyses WHERE room = $1",
    delete_room: "DELETE FROM rooms WHERE id = $1",
};

/// This backend's SQL for the lobby's rows.
const SEEKS: SeekStatements = SeekStatements {
    rooms: &SQL,
    insert: "INSERT INTO seeks (room, side, clock_initial, clock_increment, created_at, \
             expires_at, owner, visitor, player, rated, rating, range_min, range_max) \
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13 \
             WHERE ((SELECT COUNT(*) FROM seeks WHERE taken_at IS NULL AND owner = $14) < $15 OR $16 = 0) \
             AND ((SELECT COUNT(*) FROM seeks WHERE taken_at IS NULL) < $17 OR $18 = 0)",
    select: "SELECT room, side, clock_initial, clock_increment, created_at, expires_at, owner, visitor, taken_at, \
             player, rated, rating, range_min, range_max FROM seeks WHERE room = $1",
    select_open: "SELECT room, side, clock_initial, clock_increment, created_at, expires_at, owner, visitor, taken_at, \
             player, rated, rating, range_min, range_max FROM seeks WHERE taken_at IS NULL \
                  ORDER BY created_at DESC, room DESC",
    select_taken: "SELECT room, side, clock_initial, clock_increment, created_at, expires_at, owner, visitor, taken_at, \
             player, rated, rating, range_min, range_max FROM seeks WHERE taken_at IS NOT NULL \
                   ORDER BY taken_at DESC, room DESC LIMIT $1",
    take: "UPDATE seeks SET taken_at = $1 WHERE room = $2 AND taken_at IS NULL",
    delete_open: "DELETE FROM seeks WHERE room = $1 AND taken_at IS NULL",
    delete: "DELETE FROM seeks WHERE room = $1",
    select_expired: "SELECT room FROM seeks WHERE taken_at IS NULL AND expires_at < $1",
    select_match: "SELECT room FROM seeks WHERE taken_at IS NULL \
                   AND clock_initial IS NOT DISTINCT FROM $1 AND clock_increment IS NOT DISTINCT FROM $2 \
                   AND visitor <> $3 AND room <> $4 AND rated = $5 \
                   AND (player IS NULL OR $6::text IS NULL OR player <> $6) \
                   AND (player IS NULL OR $6 IS NULL OR NOT EXISTS (SELECT 1 FROM blocks b \
                        WHERE (b.player = seeks.player AND b.blocked = $6) \
                           OR (b.player = $6 AND b.blocked = seeks.player))) \
                   AND (range_min IS NULL OR $7::bigint >= range_min) \
                   AND (range_max IS NULL OR $7 <= range_max) \
                   AND ($13::bigint IS NULL OR rating >= $13) AND ($14::bigint IS NULL OR rating <= $14) \
                   AND (rating IS NULL OR $7 IS NULL OR $8::bigint - created_at >= $12::bigint \
                        OR abs(rating - $7) <= $9::bigint + $10::bigint * (($8 - created_at) / $11::bigint)) \
                   ORDER BY COALESCE(abs(rating - $7), 1000000000), created_at, room LIMIT 1 FOR UPDATE",
    // Transaction-scoped, in the two-key space (presence locks use the one-key space, which
    // does not overlap it): 0x5345_4e45 is "SENE", 1 the pairing.
    lock_pairing: Some("SELECT pg_advisory_xact_lock(1397050949, 1)"),
    notify: Some("SELECT pg_notify($1, $2)"),
};

/// The rows are [`super::rows`]'s, shared with the SQLite store; what differs is the point:
/// writes go straight to the pool (PostgreSQL takes many writers), appends through the group
/// commit.
#[async_trait]
impl RoomLog for PgStore {
    async fn create_room(
        &self,
        room: &RoomRow,
        events: &[StoredEvent],
        summary: Option<&str>,
    ) -> Result<(), StoreError> {
        rows::create_room(&self.pool, &SQL, room, events, summary).await
    }

    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError> {
        rows::room(&self.pool, &SQL, id).await
    }

    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError> {
        rows::take_seat(&self.pool, &SQL, room, side, seat).await
    }

    async fn append_with(
        &self,
        room: &str,
        events: &[StoredEvent],
        summary: Option<&str>,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError> {
        if events.is_empty() {
            return Ok(());
        }
        let append = Append {
            room,
            events,
            summary,
        };
        self.appends.append(append, work).await
    }

    async fn summary(&self, room: &str) -> Result<Option<String>, StoreError> {
        summaries::summary(&self.pool, room).await
    }

    async fn save_summary(&self, room: &str, v: Version, summary: &str) -> Result<(), StoreError> {
        summaries::save(&self.pool, room, v, summary).await
    }

    async fn unsummarized(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        summaries::unsummarized(&self.pool, after, i64::from(limit)).await
    }

    async fn events_after(
        &self,
        room: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        rows::events_after(&self.pool, &SQL, room, after).await
    }

    async fn analysis(&self, room: &str) -> Result<Option<String>, StoreError> {
        rows::analysis(&self.pool, &SQL, room).await
    }

    async fn save_analysis(&self, room: &str, analysis: &str) -> Result<(), StoreError> {
        rows::save_analysis(&self.pool, &SQL, room, analysis).await
    }

    async fn delete_swept(
        &self,
        sweep: Sweep,
        before: UnixMs,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        sweep::delete_swept(&self.pool, &SQL, sweep, before, i64::from(limit)).await
    }

    async fn timed_in_play(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        rows::timed_in_play(&self.pool, &SQL, after, i64::from(limit)).await
    }

    async fn set_turn(&self, room: &str, turn: Option<Turn>) -> Result<(), StoreError> {
        Ok(turns::write_turn!(&self.pool, room, turn)?)
    }

    async fn due_turns(&self, before: UnixMs, limit: u32) -> Result<Vec<String>, StoreError> {
        rows::due_turns(&self.pool, before, i64::from(limit)).await
    }

    async fn turns_of(&self, player: &str, limit: u32) -> Result<Vec<TurnOf>, StoreError> {
        Ok(turns::turns_of!(&self.pool, player, limit)?)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        rows::check_migrated(&self.pool, &MIGRATOR).await
    }
}

#[async_trait]
impl SeekList for PgStore {
    async fn post_seek(&self, seek: &SeekRow, caps: SeekCaps) -> Result<bool, StoreError> {
        seeks::postgres::post(&self.pool, &SEEKS, seek, caps.per_owner, caps.total).await
    }

    async fn seek(&self, room: &str) -> Result<Option<SeekRow>, StoreError> {
        seeks::postgres::seek(&self.pool, &SEEKS, room).await
    }

    async fn open_seeks(&self) -> Result<Vec<SeekRow>, StoreError> {
        seeks::postgres::open(&self.pool, &SEEKS).await
    }

    async fn taken_seeks(&self, limit: u32) -> Result<Vec<SeekRow>, StoreError> {
        seeks::postgres::taken(&self.pool, &SEEKS, limit).await
    }

    async fn take_seek(&self, room: &str, at: UnixMs) -> Result<bool, StoreError> {
        seeks::postgres::take(&self.pool, &SEEKS, room, at).await
    }

    async fn withdraw_seek(&self, room: &str, why: SeekGone) -> Result<bool, StoreError> {
        seeks::postgres::withdraw(&self.pool, &SEEKS, room, why).await
    }

    async fn unlist_seek(&self, room: &str) -> Result<(), StoreError> {
        seeks::postgres::unlist(&self.pool, &SEEKS, room).await
    }

    async fn renew_seeks(&self, rooms: &[String], until: UnixMs) -> Result<(), StoreError> {
        seeks::postgres::renew(&self.pool, rooms, until).await
    }

    async fn expire_seeks(&self, now: UnixMs) -> Result<Vec<String>, StoreError> {
        seeks::postgres::expire(&self.pool, &SEEKS, now).await
    }

    async fn pair_seek(&self, pairing: &Pairing<'_>) -> Result<Option<String>, StoreError> {
        seeks::postgres::pair(&self.pool, &SEEKS, pairing).await
    }
}

#[async_trait]
impl Cluster for PgStore {
    async fn hold_presence(&self, room: &str, side: Side, held: bool) -> Result<(), StoreError> {
        Ok(self.presence.set(room, side, held).await?)
    }

    async fn held_elsewhere(&self, room: &str, side: Side) -> Result<bool, StoreError> {
        Ok(PresenceLocks::held_anywhere(&self.pool, room, side).await?)
    }

    async fn keep_clock(&self, room: &str) -> Result<bool, StoreError> {
        Ok(self.presence.keep_clock(room).await?)
    }

    async fn let_go_of_clock(&self, room: &str) -> Result<(), StoreError> {
        Ok(self.presence.let_go_of_clock(room).await?)
    }

    fn instance(&self) -> InstanceId {
        self.presence.instance()
    }

    async fn announce_spectators(&self, counts: &[(String, u32)]) -> Result<(), StoreError> {
        // Held before anyone hears the counts, so whoever hears them finds this instance alive.
        self.presence.hold_instance().await?;
        let payloads = listener::spectators_payloads(self.presence.instance(), counts);
        notify_all(&self.pool, payloads).await
    }

    async fn ask_for_spectators(&self) -> Result<(), StoreError> {
        let asked = listener::spectators_asked_payload(self.presence.instance());
        notify_all(&self.pool, vec![asked]).await
    }

    async fn instance_alive(&self, instance: InstanceId) -> Result<bool, StoreError> {
        Ok(PresenceLocks::instance_alive(&self.pool, instance).await?)
    }
}

/// Sends a notification per payload on [`listener::CHANNEL`], in one statement.
async fn notify_all(pool: &PgPool, payloads: Vec<String>) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload")
        .bind(listener::CHANNEL)
        .bind(payloads)
        .execute(pool)
        .await?;
    Ok(())
}

/// Commits a batch with one statement, so one round trip and one transaction:
/// the INSERT, and per room a notification that PostgreSQL delivers only when
/// (and if) it commits. A clash on any (room, v) fails the whole statement:
/// nothing is written, nobody is notified.
struct Appends {
    pool: PgPool,
}

#[async_trait]
impl Committer for Appends {
    /// One statement; in a transaction with the work, when there is any.
    async fn commit(
        &self,
        appends: &[Append<'_>],
        work: &[Arc<dyn InCommit>],
    ) -> Result<(), sqlx::Error> {
        let payloads: Vec<String> = appends
            .iter()
            .filter_map(|append| Some(listener::payload(append.room, append.last_v()?)))
            .collect();
        let mut query = QueryBuilder::new("WITH appended AS (");
        push_insert_events(&mut query, appends);
        // A data-modifying WITH runs whether or not the SELECT reads it.
        query.push(" RETURNING v), summarized AS (");
        if !push_upsert(&mut query, appends) {
            query.push("SELECT 1");
        }
        query
            .push(") SELECT pg_notify(")
            .push_bind(listener::CHANNEL)
            .push(", payload) FROM unnest(")
            .push_bind(payloads)
            .push("::text[]) AS payload");
        if work.is_empty() {
            query.build().execute(&self.pool).await?;
            return Ok(());
        }
        let mut transaction = self.pool.begin().await?;
        query.build().execute(&mut *transaction).await?;
        for work in work {
            work.on_postgres(&mut transaction).await?;
        }
        transaction.commit().await
    }
}

#[async_trait]
impl TournamentLog for PgStore {
    async fn create_tournament(
        &self,
        row: &TournamentRow,
        events: &[StoredEvent],
    ) -> Result<(), StoreError> {
        tournaments::create(&self.pool, row, events).await
    }

    async fn append_tournament_with(
        &self,
        id: &str,
        events: &[StoredEvent],
        summary: &str,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        tournaments::append_on::<sqlx::Postgres>(&mut tx, id, events, summary).await?;
        // Every instance's followers of the tournament hear of it (`store/tournament_news.rs`).
        notify_tournament(&mut *tx, id).await?;
        if let Some(work) = work {
            work.on_postgres(&mut tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn announce(&self, tournament: &str) -> Result<(), StoreError> {
        notify_tournament(&self.pool, tournament).await
    }

    async fn tournament_events(
        &self,
        id: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        tournaments::events_after(&self.pool, id, after).await
    }

    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError> {
        tournaments::select(&self.pool, id).await
    }

    async fn tournaments(
        &self,
        status: Option<&str>,
        newest: bool,
        limit: u32,
    ) -> Result<Vec<TournamentRow>, StoreError> {
        tournaments::select_by_status(&self.pool, status, newest, limit).await
    }

    async fn keep_seats(
        &self,
        tournament: &str,
        room: &str,
        seats: &[(String, String)],
    ) -> Result<Vec<String>, StoreError> {
        tournaments::keep_seats(&self.pool, tournament, room, seats).await
    }

    async fn seat_token(&self, room: &str, player: &str) -> Result<Option<String>, StoreError> {
        tournaments::seat_token(&self.pool, room, player).await
    }

    async fn tournament_of(&self, room: &str) -> Result<Option<String>, StoreError> {
        tournaments::tournament_of(&self.pool, room).await
    }

    async fn lease(
        &self,
        tournament: &str,
        holder: &str,
        now: UnixMs,
        until: UnixMs,
    ) -> Result<bool, StoreError> {
        tournaments::lease(&self.pool, tournament, holder, now, until).await
    }

    async fn release(&self, tournament: &str, holder: &str) -> Result<(), StoreError> {
        tournaments::release(&self.pool, tournament, holder).await
    }
}

/// `NOTIFY` that tournament `id`'s followers should read it again (`store/tournament_news.rs`).
async fn notify_tournament<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    id: &str,
) -> Result<(), StoreError> {
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(listener::CHANNEL)
        .bind(listener::tournament_payload(id))
        .execute(executor)
        .await?;
    Ok(())
}

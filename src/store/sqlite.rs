//! The embedded store ([`RoomLog`] and [`SeekList`]; one instance, no cluster): one SQLite file in WAL mode, created on first
//! start, with the migrations in `migrations/sqlite/` applied on open.
//! Appends are committed in batches, and the WAL checkpointed, by [`writer`];
//! every other write goes through it too ([`Writer::write`]), so the WAL stays bounded.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};

use super::append::Append;
use super::rows::{self, Statements};
use super::seeks::{self, Pairing, SeekStatements};
use super::summaries;
use super::sweep;
use super::tournaments::{self, TournamentLog, TournamentRow};
use super::turns::{self, Turn, TurnOf};
use super::{
    InCommit, RoomLog, RoomRow, SeatRow, SeekCaps, SeekList, SeekRow, StoreError, StoredEvent,
    Sweep,
};
use crate::engine::Side;
use crate::protocol::{SeekGone, UnixMs, Version};
use pool::pool_options;
use writer::Writer;

pub mod news;
pub mod pool;
mod writer;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

pub struct SqliteStore {
    pool: SqlitePool,
    /// Every append goes through one writer that commits them in batches
    /// and also keeps the WAL checkpointed.
    writer: Writer,
}

/// Migrates the database to this binary's schema ([`super::schema`]): what every store on
/// this database (the rooms', the players') does when it opens.
pub async fn migrate(pool: &SqlitePool) -> Result<(), StoreError> {
    super::schema::migrate(pool, &MIGRATOR).await
}

/// What opening the database at `url` would migrate, without doing it (or creating it).
pub(super) async fn migration_plan(url: &str) -> Result<super::schema::Plan, StoreError> {
    let options = SqliteConnectOptions::from_str(url)?.read_only(true);
    if !options.get_filename().exists() {
        return Ok(super::schema::Plan::new_database(&MIGRATOR));
    }
    let pool = pool_options()
        .max_connections(1)
        .connect_with(options)
        .await?;
    super::schema::plan(&pool, &MIGRATOR).await
}

impl SqliteStore {
    /// Opens (creating if missing) the database at `url` and migrates it.
    pub async fn open(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // With WAL, NORMAL survives a killed process (only a power cut
            // can lose the last commits) at a fraction of FULL's fsyncs.
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            // The writer checkpoints ([`writer`]): run inside a commit, as
            // SQLite does by default, they held up every room's appends.
            .pragma("wal_autocheckpoint", "0")
            .busy_timeout(Duration::from_secs(5));
        let pool = pool_options()
            .max_connections(4)
            .connect_with(options)
            .await?;
        migrate(&pool).await?;
        Ok(SqliteStore {
            writer: Writer::start(pool.clone()).await?,
            pool,
        })
    }
}

/// Free space under which the database's filesystem counts as full, and the instance as not
/// ready (`/readyz`): a full disk fails every write (SQLITE_FULL), though reads still work, so
/// the database's answering is not enough. A batch of appends writes far less; a WAL that still
/// has room may write on for a while below it, but not for long.
const READY_FREE: u64 = 1 << 20;

/// This backend's SQL for the statements every backend runs alike.
pub(super) const SQL: Statements = Statements {
    insert_room: "INSERT INTO rooms (id, mode, seed, created_at, black_token_hash, \
                  black_client_seed, white_token_hash, white_client_seed, clock_initial, clock_increment) \
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    select_room: "SELECT id, mode, seed, created_at, black_token_hash, black_client_seed, \
                  white_token_hash, white_client_seed, clock_initial, clock_increment \
                  FROM rooms WHERE id = ?",
    take_black_seat: "UPDATE rooms SET black_token_hash = ?, black_client_seed = ? \
                      WHERE id = ? AND black_token_hash IS NULL",
    take_white_seat: "UPDATE rooms SET white_token_hash = ?, white_client_seed = ? \
                      WHERE id = ? AND white_token_hash IS NULL",
    events_after: "SELECT v, at, kind, data FROM events WHERE room = ? AND v > ? ORDER BY v",
    select_analysis: "SELECT data FROM analyses WHERE room = ?",
    insert_analysis: "INSERT INTO analyses (room, data) VALUES (?, ?) ON CONFLICT (room) DO NOTHING",
    select_unstarted: "SELECT id FROM rooms WHERE created_at < ? AND NOT EXISTS \
                       (SELECT 1 FROM events WHERE room = rooms.id AND kind = 'started') LIMIT ?",
    // SQLite has one writer: a transaction that has read and then writes fails (and is tried at
    // the next sweep) if another wrote in between, so no lock is needed.
    select_timed_in_play: "SELECT id FROM rooms WHERE clock_initial IS NOT NULL AND id > ? \
                           AND (clock_increment <> 0 OR clock_initial < 86400) \
                           AND EXISTS (SELECT 1 FROM events WHERE room = rooms.id AND kind = 'started') \
                           AND NOT EXISTS \
                           (SELECT 1 FROM events WHERE room = rooms.id AND kind = 'game-over') \
                           ORDER BY id LIMIT ?",
    lock_unstarted: "SELECT id FROM rooms WHERE id = ?1 AND created_at < ?2 AND NOT EXISTS \
                     (SELECT 1 FROM events WHERE room = ?1 AND kind = 'started')",
    select_forgotten: "SELECT id FROM rooms WHERE mode IN ('local', 'ai') AND created_at < ?1 \
                       AND NOT EXISTS (SELECT 1 FROM room_players WHERE room = rooms.id) \
                       AND (SELECT MAX(at) FROM events WHERE room = rooms.id) < ?1 LIMIT ?2",
    lock_forgotten: "SELECT id FROM rooms WHERE id = ?1 \
                     AND NOT EXISTS (SELECT 1 FROM room_players WHERE room = ?1) \
                     AND (SELECT MAX(at) FROM events WHERE room = ?1) < ?2",
    delete_events: "DELETE FROM events WHERE room = ?",
    delete_analysis: "DELETE FROM analyses WHERE room = ?",
    delete_room: "DELETE FROM rooms WHERE id = ?",
};

/// This backend's SQL for the lobby's rows.
const SEEKS: SeekStatements = SeekStatements {
    rooms: &SQL,
    insert: "INSERT INTO seeks (room, side, clock_initial, clock_increment, created_at, \
             expires_at, owner, visitor, player, rated, rating, range_min, range_max) \
             SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? \
             WHERE ((SELECT COUNT(*) FROM seeks WHERE taken_at IS NULL AND owner = ?) < ? OR ? = 0) \
             AND ((SELECT COUNT(*) FROM seeks WHERE taken_at IS NULL) < ? OR ? = 0)",
    select: "SELECT room, side, clock_initial, clock_increment, created_at, expires_at, owner, visitor, taken_at, \
             player, rated, rating, range_min, range_max FROM seeks WHERE room = ?",
    select_open: "SELECT room, side, clock_initial, clock_increment, created_at, expires_at, owner, visitor, taken_at, \
             player, rated, rating, range_min, range_max FROM seeks WHERE taken_at IS NULL \
                  ORDER BY created_at DESC, room DESC",
    select_taken: "SELECT room, side, clock_initial, clock_increment, created_at, expires_at, owner, visitor, taken_at, \
             player, rated, rating, range_min, range_max FROM seeks WHERE taken_at IS NOT NULL \
                   ORDER BY taken_at DESC, room DESC LIMIT ?",
    take: "UPDATE seeks SET taken_at = ? WHERE room = ? AND taken_at IS NULL",
    delete_open: "DELETE FROM seeks WHERE room = ? AND taken_at IS NULL",
    delete: "DELETE FROM seeks WHERE room = ?",
    select_expired: "SELECT room FROM seeks WHERE taken_at IS NULL AND expires_at < ?",
    select_match: "SELECT room FROM seeks WHERE taken_at IS NULL AND clock_initial IS ?1 \
                   AND clock_increment IS ?2 AND visitor <> ?3 AND room <> ?4 AND rated = ?5 \
                   AND (player IS NULL OR ?6 IS NULL OR player <> ?6) \
                   AND (player IS NULL OR ?6 IS NULL OR NOT EXISTS (SELECT 1 FROM blocks b \
                        WHERE (b.player = seeks.player AND b.blocked = ?6) \
                           OR (b.player = ?6 AND b.blocked = seeks.player))) \
                   AND (range_min IS NULL OR ?7 >= range_min) AND (range_max IS NULL OR ?7 <= range_max) \
                   AND (?13 IS NULL OR rating >= ?13) AND (?14 IS NULL OR rating <= ?14) \
                   AND (rating IS NULL OR ?7 IS NULL OR ?8 - created_at >= ?12 \
                        OR abs(rating - ?7) <= ?9 + ?10 * ((?8 - created_at) / ?11)) \
                   ORDER BY COALESCE(abs(rating - ?7), 1000000000), created_at, room LIMIT 1",
    // The one writer serializes pairings: every write goes through it.
    lock_pairing: None,
    // One instance: the lobby hears its own changes directly.
    notify: None,
};

/// The rows are [`super::rows`]'s, shared with the PostgreSQL store; what differs is the point:
/// every write here goes through the one writer (SQLite takes one writer at a time), reads go
/// straight to the pool.
#[async_trait]
impl RoomLog for SqliteStore {
    async fn create_room(
        &self,
        room: &RoomRow,
        events: &[StoredEvent],
        summary: Option<&str>,
    ) -> Result<(), StoreError> {
        let create = rows::create_room(&self.pool, &SQL, room, events, summary);
        self.writer.write(create).await
    }

    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError> {
        rows::room(&self.pool, &SQL, id).await
    }

    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError> {
        let take = rows::take_seat(&self.pool, &SQL, room, side, seat);
        self.writer.write(take).await
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
        self.writer.append(append, work).await
    }

    async fn summary(&self, room: &str) -> Result<Option<String>, StoreError> {
        summaries::summary(&self.pool, room).await
    }

    async fn save_summary(&self, room: &str, v: Version, summary: &str) -> Result<(), StoreError> {
        let save = summaries::save(&self.pool, room, v, summary);
        self.writer.write(save).await
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
        let delete = sweep::delete_swept(&self.pool, &SQL, sweep, before, i64::from(limit));
        self.writer.write(delete).await
    }

    async fn timed_in_play(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        rows::timed_in_play(&self.pool, &SQL, after, i64::from(limit)).await
    }

    async fn set_turn(&self, room: &str, turn: Option<Turn>) -> Result<(), StoreError> {
        let pool = &self.pool;
        let write = async move { Ok(turns::write_turn!(pool, room, turn)?) };
        self.writer.write(write).await
    }

    async fn due_turns(&self, before: UnixMs, limit: u32) -> Result<Vec<String>, StoreError> {
        rows::due_turns(&self.pool, before, i64::from(limit)).await
    }

    async fn turns_of(&self, player: &str, limit: u32) -> Result<Vec<TurnOf>, StoreError> {
        Ok(turns::turns_of!(&self.pool, player, limit)?)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        rows::check_migrated(&self.pool, &MIGRATOR).await?;
        let options = self.pool.connect_options();
        // An in-memory database (a test's) has no filesystem to ask.
        match crate::os::free_space(options.get_filename()) {
            Ok(free) if free < READY_FREE => Err(StoreError::DiskFull),
            _ => Ok(()),
        }
    }
}

#[async_trait]
impl SeekList for SqliteStore {
    async fn post_seek(&self, seek: &SeekRow, caps: SeekCaps) -> Result<bool, StoreError> {
        self.writer
            .write(seeks::sqlite::post(
                &self.pool,
                &SEEKS,
                seek,
                caps.per_owner,
                caps.total,
            ))
            .await
    }

    async fn seek(&self, room: &str) -> Result<Option<SeekRow>, StoreError> {
        seeks::sqlite::seek(&self.pool, &SEEKS, room).await
    }

    async fn open_seeks(&self) -> Result<Vec<SeekRow>, StoreError> {
        seeks::sqlite::open(&self.pool, &SEEKS).await
    }

    async fn taken_seeks(&self, limit: u32) -> Result<Vec<SeekRow>, StoreError> {
        seeks::sqlite::taken(&self.pool, &SEEKS, limit).await
    }

    async fn take_seek(&self, room: &str, at: UnixMs) -> Result<bool, StoreError> {
        self.writer
            .write(seeks::sqlite::take(&self.pool, &SEEKS, room, at))
            .await
    }

    async fn withdraw_seek(&self, room: &str, why: SeekGone) -> Result<bool, StoreError> {
        self.writer
            .write(seeks::sqlite::withdraw(&self.pool, &SEEKS, room, why))
            .await
    }

    async fn unlist_seek(&self, room: &str) -> Result<(), StoreError> {
        self.writer
            .write(seeks::sqlite::unlist(&self.pool, &SEEKS, room))
            .await
    }

    async fn renew_seeks(&self, rooms: &[String], until: UnixMs) -> Result<(), StoreError> {
        self.writer
            .write(seeks::sqlite::renew(&self.pool, rooms, until))
            .await
    }

    async fn expire_seeks(&self, now: UnixMs) -> Result<Vec<String>, StoreError> {
        self.writer
            .write(seeks::sqlite::expire(&self.pool, &SEEKS, now))
            .await
    }

    async fn pair_seek(&self, pairing: &Pairing<'_>) -> Result<Option<String>, StoreError> {
        self.writer
            .write(seeks::sqlite::pair(&self.pool, &SEEKS, pairing))
            .await
    }
}

#[async_trait]
impl TournamentLog for SqliteStore {
    async fn create_tournament(
        &self,
        row: &TournamentRow,
        events: &[StoredEvent],
    ) -> Result<(), StoreError> {
        self.writer
            .write(tournaments::create(&self.pool, row, events))
            .await
    }

    async fn append_tournament_with(
        &self,
        id: &str,
        events: &[StoredEvent],
        summary: &str,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError> {
        self.writer
            .write(async {
                let mut tx = self.pool.begin().await?;
                tournaments::append_on::<sqlx::Sqlite>(&mut tx, id, events, summary).await?;
                if let Some(work) = work {
                    work.on_sqlite(&mut tx).await?;
                }
                tx.commit().await?;
                Ok(())
            })
            .await
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
        self.writer
            .write(tournaments::keep_seats(&self.pool, tournament, room, seats))
            .await
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
        self.writer
            .write(tournaments::lease(
                &self.pool, tournament, holder, now, until,
            ))
            .await
    }

    async fn release(&self, tournament: &str, holder: &str) -> Result<(), StoreError> {
        self.writer
            .write(tournaments::release(&self.pool, tournament, holder))
            .await
    }
}

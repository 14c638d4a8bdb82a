//! Row reading and writing shared by every backend: both schemas have the
//! same columns, so turning rows into a [`RoomRow`] or [`StoredEvent`],
//! events into an `INSERT`, and the statements that differ only in their
//! placeholders ([`Statements`]) are run by code written once, generic over
//! the database. Each backend keeps its own SQL text.
//!
//! The `where` clauses look alike from function to function, and cannot be written once: Rust
//! does not carry a trait's where-clauses on associated types (`for<'c> &'c mut
//! DB::Connection: Executor<'c>`) to its users, so a bound alias would not compile; and each
//! lists only the types that function binds and reads.

use sqlx::{
    ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, QueryBuilder, Row, Type,
};

use super::append::{Append, version_to_i64};
use super::summaries::push_upsert;
use super::{RoomRow, SeatRow, StoreError, StoredEvent};
use crate::engine::Side;
use crate::protocol::{Mode, TimeControl, UnixMs, Version};

/// One backend's SQL for the statements whose logic every backend shares
/// (they differ only in placeholder syntax).
pub(super) struct Statements {
    /// Inserts a `rooms` row: id, mode, seed, created_at, then each seat's
    /// token hash and client seed, black first, then the clock's initial and increment.
    pub insert_room: &'static str,
    /// Every column of one `rooms` row, by id.
    pub select_room: &'static str,
    /// Sets black's token hash and client seed in a room (by id) only while
    /// the seat is free: the check and the write are one statement.
    pub take_black_seat: &'static str,
    /// The same for white.
    pub take_white_seat: &'static str,
    /// `v, at, kind, data` of a room's events after a version, in order.
    pub events_after: &'static str,
    /// `data` of a room's stored analysis.
    pub select_analysis: &'static str,
    /// Inserts `(room, data)` into `analyses`, doing nothing if the room has one.
    pub insert_analysis: &'static str,
    /// Ids of rooms created before a time whose log has no `started` event, at most a number.
    pub select_unstarted: &'static str,
    /// Ids of live timed rooms (a control whole days long with no increment is correspondence)
    /// whose log has `started` and no `game-over`, above an id, in id order, at most a number.
    pub select_timed_in_play: &'static str,
    /// The room by id if it was created before a time and still has not started, locked until
    /// the transaction ends where the database can (so that no event is appended to it
    /// meanwhile).
    pub lock_unstarted: &'static str,
    /// Ids of one-screen and computer rooms (`local`, `ai`) with no named player whose last
    /// event is older than a time, at most a number: the games `--forget-local-games-after`
    /// deletes.
    pub select_forgotten: &'static str,
    /// The room by id if it is still such a room, its last event still older than the time,
    /// locked like `lock_unstarted`.
    pub lock_forgotten: &'static str,
    /// Deletes a room's events, by room id.
    pub delete_events: &'static str,
    /// Deletes a room's stored analysis, by room id.
    pub delete_analysis: &'static str,
    /// Deletes a room, by id.
    pub delete_room: &'static str,
}

/// How many rows a statement changed: each backend's query result says so
/// in its own type.
pub(super) trait RowsAffected {
    fn rows_affected(&self) -> u64;
}

impl RowsAffected for sqlx::sqlite::SqliteQueryResult {
    fn rows_affected(&self) -> u64 {
        self.rows_affected()
    }
}

impl RowsAffected for sqlx::postgres::PgQueryResult {
    fn rows_affected(&self) -> u64 {
        self.rows_affected()
    }
}

/// Creates a room, its first events and its summary in one transaction;
/// [`StoreError::RoomExists`] if the id is taken.
pub(super) async fn create_room<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    room: &RoomRow,
    events: &[StoredEvent],
    summary: Option<&str>,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    Option<String>: for<'t> Encode<'t, DB> + Type<DB>,
    Vec<u8>: for<'t> Encode<'t, DB> + Type<DB>,
    Option<Vec<u8>>: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    Option<i64>: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut tx = pool.begin().await?;
    match insert_room::<DB>(&mut tx, sql, room, events, summary).await {
        Err(e) if is_unique_violation(&e) => return Err(StoreError::RoomExists),
        other => other?,
    };
    tx.commit().await?;
    Ok(())
}

/// Inserts a room, its first events and its summary on a connection inside a transaction (the
/// caller's): [`create_room`]'s, or a rematch's append (the rematch's room is made with the
/// event that names it, so the log never points at a room that was never made).
pub(super) async fn insert_room<DB>(
    connection: &mut DB::Connection,
    sql: &Statements,
    room: &RoomRow,
    events: &[StoredEvent],
    summary: Option<&str>,
) -> Result<(), sqlx::Error>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    Option<String>: for<'t> Encode<'t, DB> + Type<DB>,
    Vec<u8>: for<'t> Encode<'t, DB> + Type<DB>,
    Option<Vec<u8>>: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    Option<i64>: for<'t> Encode<'t, DB> + Type<DB>,
{
    let (black_hash, black_seed) = seat_columns(&room.black);
    let (white_hash, white_seed) = seat_columns(&room.white);
    sqlx::query(sql.insert_room)
        .bind(room.id.clone())
        .bind(room.mode.name().to_string())
        .bind(room.seed.to_vec())
        .bind(room.created_at)
        .bind(black_hash)
        .bind(black_seed)
        .bind(white_hash)
        .bind(white_seed)
        .bind(room.clock.map(|clock| i64::from(clock.initial)))
        .bind(room.clock.map(|clock| i64::from(clock.increment)))
        .execute(&mut *connection)
        .await?;
    let first = [Append {
        room: &room.id,
        events,
        summary,
    }];
    if !events.is_empty() {
        insert_events(&first)
            .build()
            .execute(&mut *connection)
            .await?;
    }
    let mut upsert = QueryBuilder::new("");
    if push_upsert(&mut upsert, &first) {
        upsert.build().execute(&mut *connection).await?;
    }
    Ok(())
}

/// The room with this id, if there is one.
pub(super) async fn room<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    id: &str,
) -> Result<Option<RoomRow>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
    Vec<u8>: for<'r> Decode<'r, DB> + Type<DB>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
    Option<i64>: for<'r> Decode<'r, DB> + Type<DB>,
{
    let mut conn = pool.acquire().await?;
    let row = sqlx::query(sql.select_room)
        .bind(id.to_string())
        .fetch_optional(&mut *conn)
        .await?;
    row.as_ref().map(room_from_row).transpose()
}

/// Takes `side`'s seat in `room` if it is free; whether it was.
pub(super) async fn take_seat<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    room: &str,
    side: Side,
    seat: &SeatRow,
) -> Result<bool, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::QueryResult: RowsAffected,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    Vec<u8>: for<'t> Encode<'t, DB> + Type<DB>,
{
    let statement = match side {
        Side::Black => sql.take_black_seat,
        Side::White => sql.take_white_seat,
    };
    let mut conn = pool.acquire().await?;
    let done = sqlx::query(statement)
        .bind(seat.token_hash.to_vec())
        .bind(seat.level.clone())
        .bind(room.to_string())
        .execute(&mut *conn)
        .await?;
    Ok(done.rows_affected() == 1)
}

/// A room's events after version `after`, in order.
pub(super) async fn events_after<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    room: &str,
    after: Version,
) -> Result<Vec<StoredEvent>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
{
    let mut conn = pool.acquire().await?;
    let rows = sqlx::query(sql.events_after)
        .bind(room.to_string())
        .bind(version_to_i64(after))
        .fetch_all(&mut *conn)
        .await?;
    rows.iter().map(event_from_row).collect()
}

/// The stored analysis of a room's game, if there is one.
pub(super) async fn analysis<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    room: &str,
) -> Result<Option<String>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    usize: ColumnIndex<DB::Row>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
{
    let mut conn = pool.acquire().await?;
    let row = sqlx::query(sql.select_analysis)
        .bind(room.to_string())
        .fetch_optional(&mut *conn)
        .await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

/// The correspondence games due at or before `before` (see [`super::RoomLog::due_turns`]).
pub(super) async fn due_turns<DB>(
    pool: &Pool<DB>,
    before: UnixMs,
    limit: i64,
) -> Result<Vec<String>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let mut conn = pool.acquire().await?;
    let ids: Vec<(String,)> = sqlx::query_as(super::turns::DUE)
        .bind(before)
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
    Ok(ids.into_iter().map(|(id,)| id).collect())
}

/// One page of timed rooms being played (see [`Statements::select_timed_in_play`]).
pub(super) async fn timed_in_play<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    after: &str,
    limit: i64,
) -> Result<Vec<String>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let mut conn = pool.acquire().await?;
    let ids: Vec<(String,)> = sqlx::query_as(sql.select_timed_in_play)
        .bind(after.to_string())
        .bind(limit)
        .fetch_all(&mut *conn)
        .await?;
    Ok(ids.into_iter().map(|(id,)| id).collect())
}

/// Keeps a room's analysis; the first one stored stays (any later one is
/// the same, computed from the same finished log).
pub(super) async fn save_analysis<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    room: &str,
    data: &str,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut conn = pool.acquire().await?;
    sqlx::query(sql.insert_analysis)
        .bind(room.to_string())
        .bind(data.to_string())
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Succeeds when every built-in migration of `migrator` is recorded as applied: a database
/// replaced or rolled back under a running server is not ready ([`super::RoomLog::ping`]).
pub(super) async fn check_migrated<DB>(
    pool: &Pool<DB>,
    migrator: &sqlx::migrate::Migrator,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB> + Default,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
{
    let applied = super::schema::applied_versions(pool).await?;
    let missing = migrator
        .iter()
        .filter(|m| !m.migration_type.is_down_migration() && !applied.contains(&m.version))
        .count();
    match missing {
        0 => Ok(()),
        missing => Err(StoreError::NotMigrated(missing)),
    }
}

/// Reads a `rooms` row (all its columns, by name).
pub(super) fn room_from_row<'r, R>(row: &'r R) -> Result<RoomRow, StoreError>
where
    R: Row,
    &'r str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Vec<u8>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
    Option<i64>: Decode<'r, R::Database> + Type<R::Database>,
{
    let mode: String = row.try_get("mode")?;
    let seed: Vec<u8> = row.try_get("seed")?;
    Ok(RoomRow {
        id: row.try_get("id")?,
        mode: mode
            .parse::<Mode>()
            .ok()
            .ok_or_else(|| StoreError::Corrupt(format!("unknown mode {mode:?}")))?,
        seed: seed
            .try_into()
            .map_err(|_| StoreError::Corrupt("seed is not 32 bytes".into()))?,
        created_at: row.try_get("created_at")?,
        black: seat_from(
            row.try_get("black_token_hash")?,
            row.try_get("black_client_seed")?,
        )?,
        white: seat_from(
            row.try_get("white_token_hash")?,
            row.try_get("white_client_seed")?,
        )?,
        clock: clock_from(
            row.try_get("clock_initial")?,
            row.try_get("clock_increment")?,
        )?,
    })
}

pub(super) fn clock_from(
    initial: Option<i64>,
    increment: Option<i64>,
) -> Result<Option<TimeControl>, StoreError> {
    let seconds = |value: i64| {
        u32::try_from(value).map_err(|_| StoreError::Corrupt(format!("clock of {value} s")))
    };
    match (initial, increment) {
        (None, None) => Ok(None),
        (Some(initial), Some(increment)) => Ok(Some(TimeControl::from_columns(
            seconds(initial)?,
            seconds(increment)?,
        ))),
        _ => Err(StoreError::Corrupt("half a time control".into())),
    }
}

/// Reads an `events` row's `v, at, kind, data`.
pub(super) fn event_from_row<'r, R>(row: &'r R) -> Result<StoredEvent, StoreError>
where
    R: Row,
    &'r str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let v: i64 = row.try_get("v")?;
    Ok(StoredEvent {
        v: Version::try_from(v)
            .map_err(|_| StoreError::Corrupt(format!("negative version {v}")))?,
        at: row.try_get("at")?,
        kind: row.try_get("kind")?,
        data: row.try_get("data")?,
    })
}

fn seat_from(hash: Option<Vec<u8>>, level: Option<String>) -> Result<Option<SeatRow>, StoreError> {
    match hash {
        None => Ok(None),
        Some(hash) => Ok(Some(SeatRow {
            token_hash: hash
                .try_into()
                .map_err(|_| StoreError::Corrupt("token hash is not 32 bytes".into()))?,
            level: level.unwrap_or_default(),
        })),
    }
}

/// A seat's columns as bound in an `INSERT`: (token hash, level), both
/// NULL for a free seat.
pub(super) fn seat_columns(seat: &Option<SeatRow>) -> (Option<Vec<u8>>, Option<String>) {
    seat.as_ref()
        .map(|s| (s.token_hash.to_vec(), s.level.clone()))
        .unzip()
}

pub(super) fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.is_unique_violation())
}

/// What an append's `INSERT` answered, as the store says it: a clash on a
/// (room, v) means another writer took the version `first` first.
pub(super) fn appended<T>(
    result: Result<T, sqlx::Error>,
    first: Version,
) -> Result<(), StoreError> {
    match result {
        Ok(_) => Ok(()),
        Err(e) if is_unique_violation(&e) => Err(StoreError::VersionConflict(first)),
        Err(e) => Err(StoreError::from(e)),
    }
}

/// One multi-row `INSERT` of several rooms' events.
/// A single statement is atomic: a clash on any (room, v) inserts nothing.
pub(super) fn insert_events<DB>(appends: &[Append]) -> QueryBuilder<DB>
where
    DB: Database,
    DB::Arguments: Default,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query = QueryBuilder::new("");
    push_insert_events(&mut query, appends);
    query
}

/// Pushes [`insert_events`]'s statement onto `query` (to use it inside a larger one).
pub(super) fn push_insert_events<DB>(query: &mut QueryBuilder<DB>, appends: &[Append])
where
    DB: Database,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let rows = appends
        .iter()
        .flat_map(|append| append.events.iter().map(|event| (append.room, event)));
    query.push("INSERT INTO events (room, v, at, kind, data) ");
    query.push_values(rows, |mut row, (room, event)| {
        row.push_bind(room.to_owned())
            .push_bind(version_to_i64(event.v))
            .push_bind(event.at)
            .push_bind(event.kind.clone())
            .push_bind(event.data.clone());
    });
}

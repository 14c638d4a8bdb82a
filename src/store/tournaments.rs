//! The log of tournaments (issue 45): each tournament's own append-only event log, kept like a
//! room's — numbered from 1, an append that finds its first version taken writes nothing and
//! answers [`StoreError::VersionConflict`] — with a summary row (what the lists show, JSON the
//! store does not interpret but for its `status`, kept as a column the directors and the lists
//! select by) committed with each append; and each tournament game's seat tokens, kept for the
//! player the seat is for. The SQL is written once, through `QueryBuilder`, for both backends.

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::{Database, Encode, Executor, IntoArguments, Pool, QueryBuilder, Row, Type};

use super::append::version_to_i64;
use super::rows::{RowsAffected, appended, is_unique_violation};
use super::{InCommit, StoreError, StoredEvent};
use crate::protocol::{UnixMs, Version};

/// A tournament as the lists show it: its id, when it starts, and its summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TournamentRow {
    pub id: String,
    pub starts_at: UnixMs,
    pub summary: String,
}

/// Tournaments and their event logs.
#[async_trait]
pub trait TournamentLog: Send + Sync + 'static {
    /// Creates a tournament with its first events and summary, atomically;
    /// [`StoreError::TournamentExists`] if the id is taken.
    async fn create_tournament(
        &self,
        row: &TournamentRow,
        events: &[StoredEvent],
    ) -> Result<(), StoreError>;

    /// Appends events, all or none, and sets the summary in the same commit; a version that
    /// exists already is [`StoreError::VersionConflict`] (another director was first).
    async fn append_tournament(
        &self,
        id: &str,
        events: &[StoredEvent],
        summary: &str,
    ) -> Result<(), StoreError> {
        self.append_tournament_with(id, events, summary, None).await
    }

    /// [`TournamentLog::append_tournament`], with `work` (if any) done in the same transaction.
    async fn append_tournament_with(
        &self,
        id: &str,
        events: &[StoredEvent],
        summary: &str,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError>;

    /// The tournament's events with a version above `after`, in order (none for an unknown id).
    async fn tournament_events(
        &self,
        id: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError>;

    /// The tournament's row, if it exists.
    async fn tournament(&self, id: &str) -> Result<Option<TournamentRow>, StoreError>;

    /// Up to `limit` tournaments whose summary's status is `status` (`None`: upcoming or
    /// running, or written before the status was kept), by start, the newest first if `newest`.
    async fn tournaments(
        &self,
        status: Option<&str>,
        newest: bool,
        limit: u32,
    ) -> Result<Vec<TournamentRow>, StoreError>;

    /// Keeps the seat tokens of tournament `tournament`'s game in `room`, `(player id, token)`;
    /// a seat kept already keeps its token (a director that made the room again after a restart
    /// hands out the same). Answers the tokens stored, in the order asked.
    async fn keep_seats(
        &self,
        tournament: &str,
        room: &str,
        seats: &[(String, String)],
    ) -> Result<Vec<String>, StoreError>;

    /// The seat token of `player` in the tournament game in `room`, if any.
    async fn seat_token(&self, room: &str, player: &str) -> Result<Option<String>, StoreError>;

    /// The tournament whose game is played in `room`, if any.
    async fn tournament_of(&self, room: &str) -> Result<Option<String>, StoreError>;

    /// Takes or renews the lease on directing `tournament` for `holder` until `until`: `true`
    /// if `holder` holds it now (it was free, theirs, or its time had run out at `now`).
    async fn lease(
        &self,
        tournament: &str,
        holder: &str,
        now: UnixMs,
        until: UnixMs,
    ) -> Result<bool, StoreError>;

    /// Lets `holder`'s lease on `tournament` go at once (a drained instance), if they hold it.
    async fn release(&self, tournament: &str, holder: &str) -> Result<(), StoreError>;

    /// Tells every instance's followers of `tournament` that what they show of it changed
    /// without an append (its games' rooms were made): PostgreSQL's `NOTIFY`, as an append
    /// sends; nothing with one instance, whose followers hear it in memory.
    async fn announce(&self, _tournament: &str) -> Result<(), StoreError> {
        Ok(())
    }
}

/// The `status` the store keeps of a summary (JSON with a `status` field).
fn status_of(summary: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(summary).ok()?;
    value.get("status")?.as_str().map(str::to_owned)
}

/// [`TournamentLog::create_tournament`] on any backend.
pub(super) async fn create<DB>(
    pool: &Pool<DB>,
    row: &TournamentRow,
    events: &[StoredEvent],
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    Option<String>: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut tx = pool.begin().await?;
    let mut insert = QueryBuilder::<DB>::new(
        "INSERT INTO tournaments (id, starts_at, summary, status) VALUES (",
    );
    insert
        .push_bind(row.id.clone())
        .push(", ")
        .push_bind(row.starts_at);
    insert.push(", ").push_bind(row.summary.clone());
    insert
        .push(", ")
        .push_bind(status_of(&row.summary))
        .push(")");
    match insert.build().execute(&mut *tx).await {
        Err(e) if is_unique_violation(&e) => return Err(StoreError::TournamentExists),
        other => other?,
    };
    if !events.is_empty() {
        insert_events::<DB>(&row.id, events)
            .build()
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// [`TournamentLog::append_tournament`]'s writes on a connection inside the caller's
/// transaction (the caller may do more in it, e.g. an operator's audit row).
pub(super) async fn append_on<DB>(
    connection: &mut DB::Connection,
    id: &str,
    events: &[StoredEvent],
    summary: &str,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    Option<String>: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let Some(first) = events.first() else {
        return Ok(());
    };
    let inserted = insert_events::<DB>(id, events)
        .build()
        .execute(&mut *connection)
        .await;
    appended(inserted, first.v)?;
    let mut update = QueryBuilder::<DB>::new("UPDATE tournaments SET summary = ");
    update
        .push_bind(summary.to_owned())
        .push(", status = ")
        .push_bind(status_of(summary))
        .push(" WHERE id = ")
        .push_bind(id.to_owned());
    update.build().execute(&mut *connection).await?;
    Ok(())
}

fn insert_events<DB>(id: &str, events: &[StoredEvent]) -> QueryBuilder<DB>
where
    DB: Database,
    DB::Arguments: Default,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query =
        QueryBuilder::new("INSERT INTO tournament_events (tournament, v, at, kind, data) ");
    query.push_values(events, |mut row, event| {
        row.push_bind(id.to_owned())
            .push_bind(version_to_i64(event.v))
            .push_bind(event.at)
            .push_bind(event.kind.clone())
            .push_bind(event.data.clone());
    });
    query
}

/// [`TournamentLog::tournament_events`] on any backend.
pub(super) async fn events_after<DB>(
    pool: &Pool<DB>,
    id: &str,
    after: Version,
) -> Result<Vec<StoredEvent>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let mut query = QueryBuilder::<DB>::new(
        "SELECT v, at, kind, data FROM tournament_events WHERE tournament = ",
    );
    query
        .push_bind(id.to_owned())
        .push(" AND v > ")
        .push_bind(version_to_i64(after));
    query.push(" ORDER BY v");
    let mut connection = pool.acquire().await?;
    let rows = query.build().fetch_all(&mut *connection).await?;
    rows.iter()
        .map(|row| {
            let v: i64 = row.try_get(0)?;
            Ok(StoredEvent {
                v: Version::try_from(v).map_err(|_| StoreError::Corrupt(format!("version {v}")))?,
                at: row.try_get(1)?,
                kind: row.try_get(2)?,
                data: row.try_get(3)?,
            })
        })
        .collect()
}

/// [`TournamentLog::tournament`] on any backend.
pub(super) async fn select<DB>(
    pool: &Pool<DB>,
    id: &str,
) -> Result<Option<TournamentRow>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    i64: Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let mut query =
        QueryBuilder::<DB>::new("SELECT id, starts_at, summary FROM tournaments WHERE id = ");
    query.push_bind(id.to_owned());
    let mut connection = pool.acquire().await?;
    let row = query.build().fetch_optional(&mut *connection).await?;
    row.map(|row| tournament_row::<DB>(&row)).transpose()
}

fn tournament_row<DB>(row: &DB::Row) -> Result<TournamentRow, StoreError>
where
    DB: Database,
    String: Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    i64: Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    Ok(TournamentRow {
        id: row.try_get(0)?,
        starts_at: row.try_get(1)?,
        summary: row.try_get(2)?,
    })
}

/// [`TournamentLog::tournaments`] on any backend.
pub(super) async fn select_by_status<DB>(
    pool: &Pool<DB>,
    status: Option<&str>,
    newest: bool,
    limit: u32,
) -> Result<Vec<TournamentRow>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let mut query =
        QueryBuilder::<DB>::new("SELECT id, starts_at, summary FROM tournaments WHERE ");
    match status {
        Some(status) => query.push("status = ").push_bind(status.to_owned()),
        None => query.push("(status IS NULL OR status IN ('upcoming', 'running'))"),
    };
    query.push(match newest {
        true => " ORDER BY starts_at DESC, id LIMIT ",
        false => " ORDER BY starts_at, id LIMIT ",
    });
    query.push_bind(i64::from(limit));
    let mut connection = pool.acquire().await?;
    let rows = query.build().fetch_all(&mut *connection).await?;
    rows.iter().map(tournament_row::<DB>).collect()
}

/// [`TournamentLog::keep_seats`] on any backend.
pub(super) async fn keep_seats<DB>(
    pool: &Pool<DB>,
    tournament: &str,
    room: &str,
    seats: &[(String, String)],
) -> Result<Vec<String>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    if !seats.is_empty() {
        let mut insert = QueryBuilder::<DB>::new(
            "INSERT INTO tournament_seats (room, player, token, tournament) ",
        );
        insert.push_values(seats, |mut row, (player, token)| {
            row.push_bind(room.to_owned())
                .push_bind(player.clone())
                .push_bind(token.clone())
                .push_bind(tournament.to_owned());
        });
        insert.push(" ON CONFLICT (room, player) DO NOTHING");
        let mut connection = pool.acquire().await?;
        insert.build().execute(&mut *connection).await?;
    }
    let mut kept = Vec::with_capacity(seats.len());
    for (player, _) in seats {
        let token = seat_token(pool, room, player).await?;
        kept.push(token.ok_or_else(|| StoreError::Corrupt(format!("no seat in {room}")))?);
    }
    Ok(kept)
}

/// [`TournamentLog::seat_token`] on any backend.
pub(super) async fn seat_token<DB>(
    pool: &Pool<DB>,
    room: &str,
    player: &str,
) -> Result<Option<String>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let mut query = QueryBuilder::<DB>::new("SELECT token FROM tournament_seats WHERE room = ");
    query
        .push_bind(room.to_owned())
        .push(" AND player = ")
        .push_bind(player.to_owned());
    let mut connection = pool.acquire().await?;
    let row = query.build().fetch_optional(&mut *connection).await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

/// [`TournamentLog::tournament_of`] on any backend: the seats' primary key (room first) finds it.
pub(super) async fn tournament_of<DB>(
    pool: &Pool<DB>,
    room: &str,
) -> Result<Option<String>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> sqlx::Decode<'r, DB>,
    Option<String>: for<'r> sqlx::Decode<'r, DB> + Type<DB>,
    usize: sqlx::ColumnIndex<DB::Row>,
{
    let mut query =
        QueryBuilder::<DB>::new("SELECT tournament FROM tournament_seats WHERE room = ");
    query.push_bind(room.to_owned()).push(" LIMIT 1");
    let mut connection = pool.acquire().await?;
    let row = query.build().fetch_optional(&mut *connection).await?;
    Ok(row
        .map(|row| row.try_get::<Option<String>, _>(0))
        .transpose()?
        .flatten())
}

/// [`TournamentLog::lease`] on any backend: one upsert, which only a free, own or expired
/// lease lets through, so of two instances asking at once one holds it.
pub(super) async fn lease<DB>(
    pool: &Pool<DB>,
    tournament: &str,
    holder: &str,
    now: UnixMs,
    until: UnixMs,
) -> Result<bool, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    DB::QueryResult: RowsAffected,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query = QueryBuilder::<DB>::new(
        "INSERT INTO tournament_leases (tournament, holder, expires_at) VALUES (",
    );
    query
        .push_bind(tournament.to_owned())
        .push(", ")
        .push_bind(holder.to_owned())
        .push(", ")
        .push_bind(until);
    query.push(
        ") ON CONFLICT (tournament) DO UPDATE SET holder = excluded.holder, \
         expires_at = excluded.expires_at WHERE tournament_leases.holder = ",
    );
    query
        .push_bind(holder.to_owned())
        .push(" OR tournament_leases.expires_at < ")
        .push_bind(now);
    let mut connection = pool.acquire().await?;
    let done = query.build().execute(&mut *connection).await?;
    Ok(done.rows_affected() > 0)
}

/// [`TournamentLog::release`] on any backend.
pub(super) async fn release<DB>(
    pool: &Pool<DB>,
    tournament: &str,
    holder: &str,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query =
        QueryBuilder::<DB>::new("UPDATE tournament_leases SET expires_at = 0 WHERE tournament = ");
    query
        .push_bind(tournament.to_owned())
        .push(" AND holder = ")
        .push_bind(holder.to_owned());
    let mut connection = pool.acquire().await?;
    query.build().execute(&mut *connection).await?;
    Ok(())
}

//! The log of tournaments (issue 45): each tournament's own append-only event log, kept like a
//! room's — numbered from 1, an append that finds its first version taken writes nothing and
//! answers [`StoreError::VersionConflict`] — with a summary row (what the lists show, JSON the
//! store does not interpret) committed with each append. The SQL is written once, through
//! `QueryBuilder`, for both backends.

use std::sync::Arc;

use async_trait::async_trait;
use sqlx::{Database, Encode, Executor, IntoArguments, Pool, QueryBuilder, Row, Type};

use super::append::version_to_i64;
use super::rows::{appended, is_unique_violation};
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
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut tx = pool.begin().await?;
    let mut insert =
        QueryBuilder::<DB>::new("INSERT INTO tournaments (id, starts_at, summary) VALUES (");
    insert
        .push_bind(row.id.clone())
        .push(", ")
        .push_bind(row.starts_at);
    insert.push(", ").push_bind(row.summary.clone()).push(")");
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
    row.map(|row| {
        Ok(TournamentRow {
            id: row.try_get(0)?,
            starts_at: row.try_get(1)?,
            summary: row.try_get(2)?,
        })
    })
    .transpose()
}

//! Deleting rooms: the background sweeps (unstarted rooms, forgotten one-screen games) and the
//! lobby's withdrawal of an unstarted room, on every backend. A sweep finds candidates with one
//! statement and checks each again, locked, with another, so that a room that changes meanwhile
//! (through another instance) is kept.

use sqlx::{Database, Decode, Encode, Executor, IntoArguments, Pool, Type};

use super::rows::Statements;
use super::{StoreError, Sweep};

/// The statement that finds a sweep's candidates, and the one that checks each again, locked.
fn sweep_statements(sweep: Sweep, sql: &Statements) -> (&'static str, &'static str) {
    match sweep {
        Sweep::Unstarted => (sql.select_unstarted, sql.lock_unstarted),
        Sweep::Forgotten => (sql.select_forgotten, sql.lock_forgotten),
    }
}

/// Deletes up to `limit` rooms that `sweep` finds as of `before`, with their events and
/// analysis, in one transaction; returns their ids.
pub(super) async fn delete_swept<DB>(
    pool: &Pool<DB>,
    sql: &Statements,
    sweep: Sweep,
    before: i64,
    limit: i64,
) -> Result<Vec<String>, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> Decode<'r, DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let (select, lock) = sweep_statements(sweep, sql);
    let mut tx = pool.begin().await?;
    let candidates: Vec<(String,)> = sqlx::query_as(select)
        .bind(before)
        .bind(limit)
        .fetch_all(&mut *tx)
        .await?;
    let mut deleted = Vec::with_capacity(candidates.len());
    for (id,) in candidates {
        // Changed meanwhile (through another instance): keep it.
        if lock_room::<DB>(&mut *tx, lock, &id, before).await? {
            delete_room::<DB>(&mut *tx, sql, &id).await?;
            deleted.push(id);
        }
    }
    tx.commit().await?;
    Ok(deleted)
}

/// Whether a room exists and its game has not started, its row locked until the transaction
/// ends where the database can: nobody appends to it or takes its seat meanwhile.
pub(super) async fn lock_unstarted<DB>(
    conn: &mut DB::Connection,
    sql: &Statements,
    id: &str,
) -> Result<bool, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> Decode<'r, DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    // Created before the end of time: any room.
    lock_room::<DB>(conn, sql.lock_unstarted, id, i64::MAX).await
}

/// Whether `lock` (bound to the room's id and `before`) still finds the room, locking its row.
async fn lock_room<DB>(
    conn: &mut DB::Connection,
    lock: &'static str,
    id: &str,
    before: i64,
) -> Result<bool, StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB> + for<'r> Decode<'r, DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
    (String,): for<'r> sqlx::FromRow<'r, DB::Row>,
{
    let still: Option<(String,)> = sqlx::query_as(lock)
        .bind(id.to_string())
        .bind(before)
        .fetch_optional(&mut *conn)
        .await?;
    Ok(still.is_some())
}

/// Deletes a room, its events and its analysis (its seek and summary rows go with it).
pub(super) async fn delete_room<DB>(
    conn: &mut DB::Connection,
    sql: &Statements,
    id: &str,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: Default + IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
{
    for statement in [sql.delete_events, sql.delete_analysis, sql.delete_room] {
        sqlx::query(statement)
            .bind(id.to_string())
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

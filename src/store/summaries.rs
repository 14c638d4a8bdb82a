//! Each room's summary row (`room_summaries`): what `GET /api/rooms/{id}` and the lobby show of a
//! room not in memory, as of a version of its log. The writer keeps it in the same commit as the
//! events that change it ([`push_upsert`]), so reading it never replays the log (issue 28). The
//! statements are the same on both backends (the query builder writes the placeholders).

use std::collections::BTreeMap;

use sqlx::{
    ColumnIndex, Database, Decode, Encode, Executor, IntoArguments, Pool, QueryBuilder, Row, Type,
};

use super::StoreError;
use super::append::{Append, version_to_i64};
use crate::protocol::Version;

/// Pushes one statement that stores each room's newest summary among `appends`; `false` if
/// none of them has one.
pub(super) fn push_upsert<DB>(query: &mut QueryBuilder<DB>, appends: &[Append]) -> bool
where
    DB: Database,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    // One row per room: PostgreSQL refuses to update a row twice in one statement.
    let mut newest: BTreeMap<&str, (Version, &str)> = BTreeMap::new();
    for append in appends {
        if let Some(summary) = append.summary {
            let v = append.last_v().unwrap_or(0);
            let kept = newest.entry(append.room).or_insert((v, summary));
            if v > kept.0 {
                *kept = (v, summary);
            }
        }
    }
    if newest.is_empty() {
        return false;
    }
    push_rows(query, newest);
    true
}

/// `INSERT`s `(room, (v, data))` rows; a room's stored summary is replaced only by a newer one
/// (a late backfill never overwrites what the writer stored since).
fn push_rows<'a, DB>(
    query: &mut QueryBuilder<DB>,
    rows: impl IntoIterator<Item = (&'a str, (Version, &'a str))>,
) where
    DB: Database,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    query.push("INSERT INTO room_summaries (room, v, data) ");
    query.push_values(rows, |mut row, (room, (v, data))| {
        row.push_bind(room.to_owned())
            .push_bind(version_to_i64(v))
            .push_bind(data.to_owned());
    });
    query.push(
        " ON CONFLICT (room) DO UPDATE SET v = excluded.v, data = excluded.data \
         WHERE excluded.v > room_summaries.v",
    );
}

/// Stores one room's summary as of version `v`, unless a newer one is stored.
pub(super) async fn save<DB>(
    pool: &Pool<DB>,
    room: &str,
    v: Version,
    data: &str,
) -> Result<(), StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query = QueryBuilder::new("");
    push_rows(&mut query, [(room, (v, data))]);
    let mut conn = pool.acquire().await?;
    query.build().execute(&mut *conn).await?;
    Ok(())
}

/// A room's stored summary (JSON), if it has one.
pub(super) async fn summary<DB>(pool: &Pool<DB>, room: &str) -> Result<Option<String>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    usize: ColumnIndex<DB::Row>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
{
    let mut query = QueryBuilder::new("SELECT data FROM room_summaries WHERE room = ");
    query.push_bind(room.to_owned());
    let mut conn = pool.acquire().await?;
    let row = query.build().fetch_optional(&mut *conn).await?;
    Ok(row.map(|row| row.try_get(0)).transpose()?)
}

/// Ids of rooms with no summary (made before the table was), above `after` in id order, at
/// most `limit`.
pub(super) async fn unsummarized<DB>(
    pool: &Pool<DB>,
    after: &str,
    limit: i64,
) -> Result<Vec<String>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB>,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    usize: ColumnIndex<DB::Row>,
    String: for<'t> Encode<'t, DB> + for<'r> Decode<'r, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query = QueryBuilder::new(
        "SELECT id FROM rooms WHERE NOT EXISTS \
         (SELECT 1 FROM room_summaries WHERE room = rooms.id) AND id > ",
    );
    query.push_bind(after.to_owned());
    query.push(" ORDER BY id LIMIT ");
    query.push_bind(limit);
    let mut conn = pool.acquire().await?;
    let rows = query.build().fetch_all(&mut *conn).await?;
    Ok(rows
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?)
}

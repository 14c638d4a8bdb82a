//! Row reading and writing shared by every backend: both schemas have the
//! same columns, so turning rows into a [`RoomRow`] or [`StoredEvent`] and
//! events into an `INSERT` is written once, generic over the database.

use sqlx::{ColumnIndex, Database, Decode, Encode, QueryBuilder, Row, Type};

use super::{RoomRow, SeatRow, StoreError, StoredEvent};
use crate::protocol::{Mode, Version};

/// Reads a `rooms` row (all its columns, by name).
pub(super) fn room_from_row<'r, R>(row: &'r R) -> Result<RoomRow, StoreError>
where
    R: Row,
    &'r str: ColumnIndex<R>,
    String: Decode<'r, R::Database> + Type<R::Database>,
    Vec<u8>: Decode<'r, R::Database> + Type<R::Database>,
    i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let mode: String = row.try_get("mode")?;
    let seed: Vec<u8> = row.try_get("seed")?;
    Ok(RoomRow {
        id: row.try_get("id")?,
        mode: Mode::from_name(&mode)
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
    })
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

fn seat_from(hash: Option<Vec<u8>>, seed: Option<String>) -> Result<Option<SeatRow>, StoreError> {
    match hash {
        None => Ok(None),
        Some(hash) => Ok(Some(SeatRow {
            token_hash: hash
                .try_into()
                .map_err(|_| StoreError::Corrupt("token hash is not 32 bytes".into()))?,
            client_seed: seed.unwrap_or_default(),
        })),
    }
}

/// A seat's columns as bound in an `INSERT`: (token hash, client seed), both
/// NULL for a free seat.
pub(super) fn seat_columns(seat: &Option<SeatRow>) -> (Option<Vec<u8>>, Option<String>) {
    seat.as_ref()
        .map(|s| (s.token_hash.to_vec(), s.client_seed.clone()))
        .unzip()
}

pub(super) fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.is_unique_violation())
}

/// Both schemas store versions as signed 64-bit integers.
pub(super) fn version_to_i64(v: Version) -> i64 {
    i64::try_from(v).expect("versions stay far below i64::MAX")
}

/// One multi-row `INSERT` of `events` into `room`'s log. A single statement is
/// atomic: a clash on any (room, v) inserts nothing.
pub(super) fn insert_events<DB>(room: &str, events: &[StoredEvent]) -> QueryBuilder<DB>
where
    DB: Database,
    DB::Arguments: Default,
    String: for<'t> Encode<'t, DB> + Type<DB>,
    i64: for<'t> Encode<'t, DB> + Type<DB>,
{
    let mut query = QueryBuilder::new("INSERT INTO events (room, v, at, kind, data) ");
    query.push_values(events, |mut row, event| {
        row.push_bind(room.to_owned())
            .push_bind(version_to_i64(event.v))
            .push_bind(event.at)
            .push_bind(event.kind.clone())
            .push_bind(event.data.clone());
    });
    query
}

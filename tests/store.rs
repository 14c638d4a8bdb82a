//! The `Store` contract, written once as functions over `&dyn Store` so
//! that every implementation runs the same checks. SQLite runs here on a
//! temporary file; another backend adds its own `backend_tests!` line.

use senet::engine::Side;
use senet::protocol::Mode;
use senet::secrets::hash_token;
use senet::store::{RoomRow, SeatRow, Store, StoreError, StoredEvent};

fn room(id: &str) -> RoomRow {
    RoomRow {
        id: id.to_string(),
        mode: Mode::Online,
        seed: [7; 32],
        created_at: 1_700_000_000_000,
        black: Some(seat("black token", "bs")),
        white: None,
    }
}

fn seat(token: &str, client_seed: &str) -> SeatRow {
    SeatRow {
        token_hash: hash_token(token),
        client_seed: client_seed.to_string(),
    }
}

fn event(v: u64, kind: &str) -> StoredEvent {
    StoredEvent {
        v,
        at: 1_700_000_000_000 + v as i64,
        kind: kind.to_string(),
        data: format!(r#"{{"n":{v}}}"#),
    }
}

/// A room reads back exactly as created; unknown ids read as `None`.
async fn rooms_round_trip(store: &dyn Store) {
    let created = room("r1");
    store
        .create_room(&created, &[event(1, "started")])
        .await
        .unwrap();
    assert_eq!(store.room("r1").await.unwrap(), Some(created.clone()));
    assert_eq!(store.room("nope").await.unwrap(), None);
    let again = store.create_room(&created, &[]).await;
    assert!(matches!(again, Err(StoreError::RoomExists)), "{again:?}");
    assert_eq!(
        store.events_after("r1", 0).await.unwrap(),
        vec![event(1, "started")]
    );
}

/// A seat is taken once; the second taker is refused and nothing changes.
async fn seats_are_taken_once(store: &dyn Store) {
    store.create_room(&room("r2"), &[]).await.unwrap();
    let white = seat("white token", "ws");
    assert!(store.take_seat("r2", Side::White, &white).await.unwrap());
    assert!(
        !store
            .take_seat("r2", Side::White, &seat("other", "x"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .take_seat("r2", Side::Black, &seat("other", "x"))
            .await
            .unwrap()
    );
    let row = store.room("r2").await.unwrap().unwrap();
    assert_eq!(row.white, Some(white));
    assert_eq!(row.black, room("r2").black);
}

/// Versions are consecutive; appending an existing version is a conflict
/// that writes nothing, even when part of the batch was new.
async fn appends_conflict_on_existing_versions(store: &dyn Store) {
    store.create_room(&room("r3"), &[]).await.unwrap();
    store
        .append("r3", &[event(1, "a"), event(2, "b")])
        .await
        .unwrap();
    let clash = store.append("r3", &[event(2, "x"), event(3, "y")]).await;
    assert!(
        matches!(clash, Err(StoreError::VersionConflict(2))),
        "{clash:?}"
    );
    store.append("r3", &[event(3, "c")]).await.unwrap();
    let kinds: Vec<_> = store
        .events_after("r3", 0)
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.v, e.kind))
        .collect();
    assert_eq!(kinds, [(1, "a".into()), (2, "b".into()), (3, "c".into())]);
    let tail = store.events_after("r3", 2).await.unwrap();
    assert_eq!(tail, vec![event(3, "c")]);
}

/// Many writers racing for the same next version: exactly one wins each.
async fn racing_appends_never_fork(store: &dyn Store) {
    store.create_room(&room("r4"), &[]).await.unwrap();
    let writers = (0..8).map(|writer| async move {
        let mut won = 0;
        for _ in 0..20 {
            let last = store.events_after("r4", 0).await.unwrap().len() as u64;
            let mut e = event(last + 1, "w");
            e.data = format!(r#"{{"writer":{writer}}}"#);
            match store.append("r4", &[e]).await {
                Ok(()) => won += 1,
                Err(StoreError::VersionConflict(_)) => {}
                Err(other) => panic!("{other}"),
            }
        }
        won
    });
    let total: usize = futures_util::future::join_all(writers)
        .await
        .into_iter()
        .sum();
    let log = store.events_after("r4", 0).await.unwrap();
    assert_eq!(log.len(), total);
    assert!(log.iter().enumerate().all(|(i, e)| e.v == i as u64 + 1));
}

async fn ping_answers(store: &dyn Store) {
    store.ping().await.unwrap();
}

/// One `#[tokio::test]` per contract function, each on a fresh store from `$open`.
macro_rules! backend_tests {
    ($backend:ident, $open:expr) => {
        mod $backend {
            use super::*;

            async fn fresh() -> std::sync::Arc<dyn Store> {
                $open.await
            }

            #[tokio::test]
            async fn rooms_round_trip() {
                super::rooms_round_trip(fresh().await.as_ref()).await
            }
            #[tokio::test]
            async fn seats_are_taken_once() {
                super::seats_are_taken_once(fresh().await.as_ref()).await
            }
            #[tokio::test]
            async fn appends_conflict_on_existing_versions() {
                super::appends_conflict_on_existing_versions(fresh().await.as_ref()).await
            }
            #[tokio::test]
            async fn racing_appends_never_fork() {
                super::racing_appends_never_fork(fresh().await.as_ref()).await
            }
            #[tokio::test]
            async fn ping_answers() {
                super::ping_answers(fresh().await.as_ref()).await
            }
        }
    };
}

async fn temp_sqlite() -> std::sync::Arc<dyn Store> {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("test.db").display());
    // The directory must outlive the store; it is removed when the test process exits.
    std::mem::forget(dir);
    senet::store::open(&url).await.unwrap()
}

backend_tests!(sqlite, temp_sqlite());

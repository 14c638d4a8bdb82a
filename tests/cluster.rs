//! Several instances on one PostgreSQL. Every test here needs the server
//! named by `SENET_TEST_POSTGRES_URL` and works in a fresh schema of its own;
//! without the variable they are reported as ignored (see
//! tests/postgres_support).

mod postgres_support;

use std::time::Duration;

use senet::cluster::{LISTENER_APPLICATION_NAME, Listener, News, Subscription};
use senet::protocol::Mode;
use senet::store::{RoomRow, StoreError, StoredEvent};
use sqlx::{Connection, PgConnection};
use tokio_util::sync::CancellationToken;

/// Long enough for a loaded machine, short enough to fail a hung test.
const PATIENCE: Duration = Duration::from_secs(20);

fn room(id: &str) -> RoomRow {
    RoomRow {
        id: id.to_string(),
        mode: Mode::Online,
        seed: [1; 32],
        created_at: 0,
        black: None,
        white: None,
    }
}

fn event(v: u64) -> StoredEvent {
    StoredEvent {
        v,
        at: v as i64,
        kind: "test".into(),
        data: "{}".into(),
    }
}

async fn next(news: &mut Subscription) -> News {
    tokio::time::timeout(PATIENCE, news.recv())
        .await
        .expect("no news in time")
        .expect("the listener stopped")
}

/// The next `Appended`, passing over `Resync`s (which other tests cause by
/// killing listening connections).
async fn next_appended(news: &mut Subscription) -> (String, u64) {
    loop {
        if let News::Appended { room, v } = next(news).await {
            return (room, v);
        }
    }
}

/// Waits for the `Resync` a listener sends once it is listening.
async fn listening(news: &mut Subscription) {
    assert_eq!(next(news).await, News::Resync);
}

/// A successful append is heard with the room's new last version; a
/// conflicting one, which wrote nothing, is not heard at all.
#[tokio::test]
#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
async fn appends_are_heard_and_conflicts_are_not() {
    postgres_support::in_fresh_schema(async |url| {
        let store = senet::store::open(&url).await.unwrap();
        let shutdown = CancellationToken::new();
        let listener = Listener::start(&url, shutdown.clone());
        let mut news = listener.subscribe();
        listening(&mut news).await;

        let id = senet::secrets::new_room_id();
        store.create_room(&room(&id), &[]).await.unwrap();
        store.append(&id, &[event(1), event(2)]).await.unwrap();
        assert_eq!(next_appended(&mut news).await, (id.clone(), 2));

        let clash = store.append(&id, &[event(2)]).await;
        assert!(
            matches!(clash, Err(StoreError::VersionConflict(2))),
            "{clash:?}"
        );
        store.append(&id, &[event(3)]).await.unwrap();
        assert_eq!(next_appended(&mut news).await, (id, 3));
        shutdown.cancel();
    })
    .await
}

/// When the listening connection dies, the listener makes a new one by
/// itself, says `Resync` (notifications in between are lost), and hears
/// appends again.
#[tokio::test]
#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
async fn a_killed_listening_connection_resyncs_and_hears_again() {
    postgres_support::in_fresh_schema(async |url| {
        let store = senet::store::open(&url).await.unwrap();
        let shutdown = CancellationToken::new();
        let listener = Listener::start(&url, shutdown.clone());
        let mut news = listener.subscribe();
        listening(&mut news).await;

        let mut admin = PgConnection::connect(&url).await.unwrap();
        let killed: Vec<bool> = sqlx::query_scalar(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
        )
        .bind(LISTENER_APPLICATION_NAME)
        .fetch_all(&mut admin)
        .await
        .unwrap();
        assert!(killed.contains(&true), "no listening connection to kill");
        assert_eq!(next(&mut news).await, News::Resync);

        let id = senet::secrets::new_room_id();
        store.create_room(&room(&id), &[]).await.unwrap();
        store.append(&id, &[event(1)]).await.unwrap();
        assert_eq!(next_appended(&mut news).await, (id, 1));
        shutdown.cancel();
    })
    .await
}

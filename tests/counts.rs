//! `GET /api/counts`, the home page's "online · rooms in use": over real HTTP and real sockets,
//! on SQLite (the whole server) and on two instances sharing PostgreSQL (each its own figure,
//! and says so).

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Client, PATIENCE, TestServer, create_room, http, online_table};
use serde_json::{Value, json};

/// The counts as the server answers them.
async fn counts(addr: SocketAddr) -> Value {
    let (status, body) = http(addr, "GET", "/api/counts", None).await;
    assert_eq!(status, 200, "{body}");
    body
}

/// Waits (past the answer's few seconds of caching) until the counts are `online` and `rooms`.
async fn counts_become(addr: SocketAddr, online: u64, rooms: u64) -> Value {
    let until = Instant::now() + PATIENCE;
    loop {
        let now = counts(addr).await;
        if now["online"] == online && now["rooms"] == rooms {
            return now;
        }
        assert!(
            Instant::now() < until,
            "counts stayed {now}, not {online} online, {rooms} rooms"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn the_counts_move_when_a_game_starts_and_when_its_players_leave() {
    // Rooms nobody is in are let go soon, as they would be after 30 s.
    let server =
        TestServer::start_with(|config| config.room_idle_after = Duration::from_millis(300)).await;
    let quiet = counts(server.addr).await;
    assert_eq!(quiet, json!({"online": 0, "rooms": 0, "scope": "server"}));

    let mut table = online_table(server.addr).await;
    assert_eq!(table.black.sync().await["phase"], "roll");
    counts_become(server.addr, 2, 1).await;
    // A spectator is a page online too; the room is the same one.
    let spectator = Client::join(server.addr, &table.room, None).await;
    counts_become(server.addr, 3, 1).await;

    // The pages close: nobody is online, and the room, idle, is let go.
    for client in [table.black, table.white, spectator] {
        client.close().await;
    }
    counts_become(server.addr, 0, 0).await;
    let created = create_room(server.addr, "ai", "white").await;
    let room = created["room"].as_str().unwrap();
    let _player = Client::join(server.addr, room, created["token"].as_str()).await;
    counts_become(server.addr, 1, 1).await;
}

/// Two instances on one PostgreSQL: each counts what it holds and says it is one of several.
async fn each_instance_counts_its_own_and_says_so(url: String) {
    let one = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let two = TestServer::start_on(tempfile::tempdir().unwrap(), url, |_| {}).await;
    let _table = online_table(one.addr).await;
    let on_one = counts_become(one.addr, 2, 1).await;
    assert_eq!(on_one["scope"], "instance");
    let on_two = counts_become(two.addr, 0, 0).await;
    assert_eq!(on_two["scope"], "instance");
}

postgres_support::postgres_tests!(each_instance_counts_its_own_and_says_so);

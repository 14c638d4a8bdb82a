//! The cap on rooms held in memory (`--max-rooms-in-memory`), on a real server with real
//! sockets: loading a room past the cap lets the least recently used idle room go, a room in
//! use stays, and a room that was let go comes back from the log when it is used again. On its
//! own in this file so that the process-wide `/metrics` gauge counts this server's rooms only.

mod common;

use common::*;
use serde_json::Value;

const CAP: usize = 3;

/// The `senet_rooms_in_memory` gauge of the server at `addr`.
async fn rooms_in_memory(server: &TestServer) -> usize {
    let text = metrics_text(server.metrics_addr).await;
    let line = text
        .lines()
        .find(|line| line.starts_with("senet_rooms_in_memory "))
        .unwrap_or_else(|| panic!("no gauge in {text}"));
    line.rsplit(' ').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn past_the_cap_the_least_recently_used_idle_room_is_let_go() {
    let server = TestServer::start_with(|config| config.max_rooms_in_memory = CAP).await;
    // A room in use: its player stays connected throughout.
    let created = create_room(server.addr, "local", "black").await;
    let busy_room = created["room"].as_str().unwrap().to_string();
    let mut busy = Client::join(server.addr, &busy_room, created["token"].as_str()).await;
    // Rooms loaded by a join, then idle (nobody connects).
    let mut idle = Vec::new();
    for _ in 0..4 * CAP {
        let created = create_room(server.addr, "online", "black").await;
        let room = created["room"].as_str().unwrap().to_string();
        join_room(server.addr, &room).await;
        idle.push((room, created["token"].as_str().unwrap().to_string()));
        assert!(
            server.rooms.live_count() <= CAP,
            "{}",
            server.rooms.live_count()
        );
    }
    let mut gauge = rooms_in_memory(&server).await;
    for _ in 0..100 {
        if gauge == CAP {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        gauge = rooms_in_memory(&server).await;
    }
    assert_eq!(gauge, CAP, "the tasks that were let go have ended");

    // The room in use was never let go: its connection still plays.
    busy.ok("roll", Value::Null).await;
    // The first idle room was let go long ago; used again, it loads from the log and plays.
    let (room, token) = &idle[0];
    let mut black = Client::join(server.addr, room, Some(token)).await;
    assert_eq!(black.state["phase"], "roll");
    black.ok("roll", Value::Null).await;
    assert_eq!(server.rooms.live_count(), CAP);
    server.stop().await;
}

//! Nothing a stranger does makes a room's log grow without bound (issue 28): reconnecting in a
//! loop, resending client seeds, and a log at its cap, each against a real server.

mod common;

use common::{Client, TestServer, create_room, record};
use senet::room::bounds::{CHATTER_UNTIL, MAX_ROOM_EVENTS, PRESENCE_BURST, PRESENCE_WINDOW};
use senet::store::StoredEvent;
use serde_json::{Value, json};

/// How many events of kind `t` a room's record holds.
fn count(record: &Value, t: &str) -> usize {
    let events = record["events"].as_array().unwrap();
    events.iter().filter(|e| e["t"] == t).count()
}

#[tokio::test]
async fn reconnecting_in_a_loop_logs_presence_once_per_window_not_once_per_socket() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    for _ in 0..40 {
        Client::join(server.addr, room, token).await.close().await;
    }
    // Whatever the last change was, it is logged within the window.
    tokio::time::sleep(PRESENCE_WINDOW).await;
    let presence = count(&record(server.addr, room).await, "presence");
    assert!(
        (1..=PRESENCE_BURST + 2).contains(&presence),
        "80 connects and closes logged {presence} presence events"
    );
}

#[tokio::test]
async fn a_repeated_client_seed_logs_nothing_and_new_ones_are_capped() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    let mut client = Client::join(server.addr, room, token).await;
    for _ in 0..20 {
        client.ok("seed", json!({"client_seed": "abcd"})).await;
    }
    assert_eq!(count(&record(server.addr, room).await, "client-seed"), 2);
    // Seven more new seeds per side (eight in all) are taken; the ninth is refused.
    for n in 1..8 {
        client
            .ok("seed", json!({"client_seed": format!("{n:04x}")}))
            .await;
    }
    let refused = client
        .refused("seed", json!({"client_seed": "ffff"}), "client_seed_locked")
        .await;
    assert!(
        refused["d"]["message"]
            .as_str()
            .unwrap()
            .contains("8 times"),
        "{refused}"
    );
    assert_eq!(count(&record(server.addr, room).await, "client-seed"), 16);
}

#[tokio::test]
async fn a_full_log_refuses_play_and_chatter_but_the_game_can_still_end() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    // Fill the log to its cap with events that replay (presence changes), as years of
    // reconnecting would.
    let store = server.rooms.store();
    let last = store.log.events_after(room, 0).await.unwrap().len() as u64;
    let filler: Vec<StoredEvent> = (last + 1..=MAX_ROOM_EVENTS)
        .map(|v| StoredEvent {
            v,
            at: 1_700_000_000_000,
            kind: "presence".into(),
            data: json!({
                "black": {"connected": v % 2 == 0, "claim_at": null},
                "white": {"connected": false, "claim_at": null}
            })
            .to_string(),
        })
        .collect();
    for chunk in filler.chunks(1_000) {
        store.log.append(room, chunk).await.unwrap();
    }

    let mut client = Client::join(server.addr, room, token).await;
    client.refused("roll", Value::Null, "room_log_full").await;
    client.close().await;
    let mut client = Client::join(server.addr, room, token).await;
    let over = client.ok("resign", Value::Null).await;
    assert_eq!(over.last().unwrap()["t"], "game-over", "{over:?}");
    client.ok("rematch", Value::Null).await;
    client.close().await;

    let record = record(server.addr, room).await;
    let events = record["events"].as_array().unwrap();
    let v = events.last().unwrap()["v"].as_u64().unwrap();
    assert_eq!(
        v,
        MAX_ROOM_EVENTS + 2,
        "only game-over and rematch past the cap"
    );
    let presence_past_chatter = events
        .iter()
        .filter(|e| e["t"] == "presence" && e["v"].as_u64().unwrap() > MAX_ROOM_EVENTS)
        .count();
    assert_eq!(presence_past_chatter, 0, "{CHATTER_UNTIL}");
}

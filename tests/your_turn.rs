//! "Your turn" (issue 46) over real sockets: `GET /api/me/turns` lists the asking player's
//! correspondence games where they are to move, with the opponent, read from the store (the
//! game is not in memory); a turn's end moves the game from one player's list to the other's;
//! a live game is not listed, nor a finished one; a browser without an identity has none. On
//! SQLite and PostgreSQL.

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Browser, Client, TestServer, play_turn};
use serde_json::{Value, json};

async fn player(addr: SocketAddr, name: &str) -> Browser {
    let mut browser = Browser::new(addr);
    let created = browser.call("POST", "/api/me", None).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let named = browser
        .call("PUT", "/api/me/name", Some(json!({ "name": name })))
        .await;
    assert_eq!(named.status, 200, "{}", named.body);
    browser
}

/// A room `black` created with `clock` and `white` joined: its id and both seat tokens.
async fn room(black: &mut Browser, white: &mut Browser, clock: Value) -> (String, String, String) {
    let body = json!({"mode": "online", "side": "black", "clock": clock});
    let created = black.call("POST", "/api/rooms", Some(body)).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let room = created.body["room"].as_str().unwrap().to_owned();
    let joined = white
        .call("POST", &format!("/api/rooms/{room}/join"), Some(json!({})))
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let token = |v: &Value| v["token"].as_str().unwrap().to_owned();
    (room, token(&created.body), token(&joined.body))
}

async fn turns(browser: &mut Browser) -> Vec<Value> {
    let answer = browser.call("GET", "/api/me/turns", None).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body["games"].as_array().unwrap().clone()
}

async fn the_list_follows_the_turn(url: String) {
    let server = TestServer::start_on(tempfile::tempdir().unwrap(), url, |config| {
        config.room_idle_after = Duration::from_millis(100);
    })
    .await;
    let addr = server.addr;
    let mut anna = player(addr, "Anna").await;
    let mut boris = player(addr, "Boris").await;

    let mut nobody = Browser::new(addr);
    assert_eq!(turns(&mut nobody).await, Vec::<Value>::new());
    // Who asks: the player's id, null for a browser without an identity (the player page and
    // the tournaments page learn it so, without a 404 from `GET /api/me`).
    let asked = nobody.call("GET", "/api/me/turns", None).await;
    assert_eq!(asked.body["player"], Value::Null);
    let annas_id = anna.call("GET", "/api/me", None).await.body["id"].clone();
    let asked = anna.call("GET", "/api/me/turns", None).await;
    assert_eq!(asked.body["player"], annas_id);

    // A live game of theirs, started: never in the list.
    let live = json!({"initial": 300, "increment": 5});
    let (live_room, live_black, live_white) = room(&mut anna, &mut boris, live).await;
    let (room, black, white_token) = room(&mut anna, &mut boris, json!({"days": 3})).await;
    let mut black = Client::join_as(addr, &room, Some(&black), anna.cookie.as_deref()).await;
    let boris_cookie = boris.cookie.clone();
    let mut white = Client::join_as(addr, &room, Some(&white_token), boris_cookie.as_deref()).await;
    let mut live_black = Client::join(addr, &live_room, Some(&live_black)).await;
    let live_white = Client::join(addr, &live_room, Some(&live_white)).await;
    live_white.close().await;
    assert_eq!(black.sync().await["turn"], "black");

    let listed = turns(&mut anna).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["room"], room.as_str());
    assert_eq!(listed[0]["opponent"]["name"], "Boris");
    let due = listed[0]["due_at"].as_i64().unwrap();
    let now = senet::room::now_ms();
    assert!(due > now + 3 * 86_400_000 - 60_000 && due <= now + 3 * 86_400_000);
    assert_eq!(turns(&mut boris).await, Vec::<Value>::new());

    // Black's turn ends: the game is Boris's to play, and no longer Anna's.
    play_turn(&mut black, "black").await;
    assert_eq!(turns(&mut anna).await, Vec::<Value>::new());
    let listed = turns(&mut boris).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["opponent"]["name"], "Anna");

    // Read from the store: the same with the room let go (the live game ended, to let it go).
    live_black.ok("resign", Value::Null).await;
    live_black.close().await;
    black.close().await;
    white.sync().await;
    white.close().await;
    for _ in 0..100 {
        if server.rooms.live_count() == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(server.rooms.live_count(), 0);
    assert_eq!(turns(&mut boris).await, listed);

    // Resigned: the game leaves the list.
    let mut white = Client::join_as(addr, &room, Some(&white_token), boris_cookie.as_deref()).await;
    white.ok("resign", Value::Null).await;
    assert_eq!(turns(&mut boris).await, Vec::<Value>::new());
    assert_eq!(turns(&mut anna).await, Vec::<Value>::new());
    white.close().await;
    server.stop().await;
}

#[tokio::test]
async fn the_list_follows_the_turn_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    the_list_follows_the_turn(url).await;
}

postgres_support::postgres_tests!(the_list_follows_the_turn);

//! Time controls over real sockets: the server ends a timed game by itself when the side to
//! move runs out, keeps both clocks across a restart, and `senet verify` checks the times.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Client, TestServer, http, play_turn, record, verify_accepted, verify_rejected};
use serde_json::{Value, json};

/// A server that accepts clocks of a second.
async fn server() -> TestServer {
    TestServer::start_with(|config| config.min_clock_initial = 1).await
}

/// An online room timed `initial`+`increment` seconds, black created, white joined: the tokens.
async fn timed_game(addr: SocketAddr, initial: u32, increment: u32) -> (String, String, String) {
    let body = json!({"mode": "online", "side": "black", "clock": {"initial": initial, "increment": increment}});
    let (status, created) = http(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let joined = common::join_room(addr, &room).await;
    let token = |v: &Value| v["token"].as_str().unwrap().to_string();
    (room, token(&created), token(&joined))
}

fn event<'a>(record: &'a Value, t: &str) -> &'a Value {
    let events = record["events"].as_array().unwrap();
    events
        .iter()
        .find(|e| e["t"] == t)
        .unwrap_or_else(|| panic!("no {t} in {events:?}"))
}

#[tokio::test]
async fn a_side_that_stops_acting_loses_on_time_with_nobody_sending_anything() {
    let server = server().await;
    let (room, _, _) = timed_game(server.addr, 1, 0).await;
    let mut watcher = Client::join(server.addr, &room, None).await;
    assert_eq!(
        watcher.state["clock"]["control"],
        json!({"initial": 1, "increment": 0})
    );
    assert_eq!(watcher.state["clock"]["running"], "black");
    let over = watcher.wait_for("game-over").await;
    assert_eq!(
        (&over["d"]["winner"], &over["d"]["reason"]),
        (&json!("white"), &json!("timeout"))
    );
    let record = record(server.addr, &room).await;
    let started = event(&record, "started");
    assert_eq!(started["d"]["clock"], json!({"initial": 1, "increment": 0}));
    let over = event(&record, "game-over");
    let late = over["at"].as_i64().unwrap() - started["at"].as_i64().unwrap() - 1_000;
    assert!(
        (0..100).contains(&late),
        "timed out {late} ms after the deadline"
    );
    assert_eq!(over["d"]["clocks"]["white"], 1_000);
    assert_eq!(over["d"]["clocks"]["black"], -late);
    verify_accepted(&record).await;
}

/// A timed room shows its clocks from the first look, before the second player comes: each side
/// its whole time, neither running.
#[tokio::test]
async fn the_clocks_show_before_the_second_player_arrives() {
    let server = server().await;
    let body = json!({"mode": "online", "side": "black", "clock": {"initial": 60, "increment": 5}});
    let (status, created) = http(server.addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap();
    let black = Client::join(server.addr, room, created["token"].as_str()).await;
    assert_eq!(black.state["phase"], "waiting");
    assert_eq!(
        black.state["clock"],
        json!({
            "control": {"initial": 60, "increment": 5},
            "remaining": {"black": 60_000, "white": 60_000},
            "running": null,
        })
    );
}

#[tokio::test]
async fn a_turn_adds_the_increment_and_the_events_carry_both_clocks() {
    let server = server().await;
    let (room, black, _) = timed_game(server.addr, 60, 5).await;
    let mut black = Client::join(server.addr, &room, Some(&black)).await;
    let events = play_turn(&mut black, "black").await;
    let last = events
        .iter()
        .rev()
        .find(|e| e["t"] == "moved" || e["t"] == "passed")
        .unwrap();
    let clocks = &last["d"]["clocks"];
    assert_eq!(clocks["white"], 60_000);
    let black_ms = clocks["black"].as_i64().unwrap();
    assert!(black_ms > 60_000 && black_ms <= 65_000, "{clocks}");
    let state = black.sync().await;
    assert_eq!(state["clock"]["running"], "white");
    assert_eq!(state["clock"]["remaining"]["black"], black_ms);
    let record = record(server.addr, &room).await;
    assert!(record["clock"].is_object(), "{record}");
}

#[tokio::test]
async fn a_restart_mid_turn_keeps_both_clocks_and_charges_nobody_for_the_downtime() {
    let server = server().await;
    let (room, black, _) = timed_game(server.addr, 60, 0).await;
    let mut black_client = Client::join(server.addr, &room, Some(&black)).await;
    play_turn(&mut black_client, "black").await;
    black_client.close().await;
    let before = record(server.addr, &room).await;
    let server = server
        .restart_with(|config| config.min_clock_initial = 1)
        .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let joining = senet::room::now_ms();
    let watcher = Client::join(server.addr, &room, None).await;
    let joined = senet::room::now_ms();
    let after = record(server.addr, &room).await;
    // White's clock ran from black's last move to the last event logged before the stop: the
    // one before `resumed` (black's leaving may be logged after `before` was read).
    let events = after["events"].as_array().unwrap();
    let resumed_at = events.iter().position(|e| e["t"] == "resumed").unwrap();
    let logged = &events[..resumed_at];
    assert!(logged.len() >= before["events"].as_array().unwrap().len());
    let turn_end = logged
        .iter()
        .rev()
        .find(|e| e["t"] == "moved" || e["t"] == "passed")
        .unwrap();
    let last_at = logged.last().unwrap()["at"].as_i64().unwrap();
    let white_then = turn_end["d"]["clocks"]["white"].as_i64().unwrap()
        - (last_at - turn_end["at"].as_i64().unwrap());
    let resumed = event(&after, "resumed");
    assert_eq!(
        resumed["d"]["clocks"],
        json!({"black": turn_end["d"]["clocks"]["black"], "white": white_then})
    );
    let clock = &watcher.state["clock"];
    assert_eq!(
        clock["remaining"]["black"],
        turn_end["d"]["clocks"]["black"]
    );
    // The server loaded the room when it started, not when the watcher came: white's clock
    // has run since `resumed`, and only since then.
    let resumed_at = resumed["at"].as_i64().unwrap();
    assert!(resumed_at < joining, "resumed when the watcher came");
    let charged = white_then - clock["remaining"]["white"].as_i64().unwrap();
    assert!(
        (joining - resumed_at..=joined - resumed_at).contains(&charged),
        "white was charged {charged} ms; resumed at {resumed_at}, watched from {joining} to {joined}"
    );
}

#[tokio::test]
async fn after_a_restart_a_timed_game_ends_on_time_with_nobody_connecting() {
    let server = server().await;
    let (room, _, _) = timed_game(server.addr, 2, 0).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let server = server
        .restart_with(|config| config.min_clock_initial = 1)
        .await;
    // Nobody connects; the record is read from the store without loading the room.
    let mut record = common::record(server.addr, &room).await;
    for _ in 0..100 {
        if record["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["t"] == "game-over")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        record = common::record(server.addr, &room).await;
    }
    let started = event(&record, "started");
    let resumed = event(&record, "resumed");
    let over = event(&record, "game-over");
    assert_eq!(
        (&over["d"]["winner"], &over["d"]["reason"]),
        (&json!("white"), &json!("timeout"))
    );
    // Black's two seconds: what ran before the stop, then the rest from `resumed` on.
    let before_stop = 2_000 - resumed["d"]["clocks"]["black"].as_i64().unwrap();
    assert!((0..2_000).contains(&before_stop), "{resumed}");
    let at = |e: &Value| e["at"].as_i64().unwrap();
    assert!(at(resumed) - at(started) >= 500, "the downtime was charged");
    let late = at(over) - at(resumed) - resumed["d"]["clocks"]["black"].as_i64().unwrap();
    assert!(
        (0..100).contains(&late),
        "timed out {late} ms after the deadline"
    );
    verify_accepted(&record).await;
}

#[tokio::test]
async fn timed_rooms_are_checked_when_created() {
    let server = TestServer::start().await;
    for (body, says) in [
        (
            json!({"mode": "online", "clock": {"initial": 10, "increment": 2}}),
            "30 to 7200",
        ),
        (
            json!({"mode": "local", "clock": {"initial": 7201, "increment": 0}}),
            "30 to 7200",
        ),
        (
            json!({"mode": "online", "clock": {"initial": 60, "increment": 61}}),
            "0 to 60",
        ),
        (
            json!({"mode": "ai", "clock": {"initial": 60, "increment": 0}}),
            "untimed",
        ),
    ] {
        let (status, error) = http(server.addr, "POST", "/api/rooms", Some(body)).await;
        assert_eq!((status, &error["error"]), (400, &json!("bad_request")));
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(says), "{message}");
    }
    let untimed = json!({"mode": "online", "clock": null});
    let (status, _) = http(server.addr, "POST", "/api/rooms", Some(untimed)).await;
    assert_eq!(status, 201);
}

#[tokio::test]
async fn verify_catches_a_forged_timeout_and_play_after_the_flag() {
    let server = server().await;
    let (room, _, _) = timed_game(server.addr, 1, 0).await;
    let mut watcher = Client::join(server.addr, &room, None).await;
    watcher.wait_for("game-over").await;
    let honest = record(server.addr, &room).await;
    verify_accepted(&honest).await;
    let events = honest["events"].as_array().unwrap();
    let over = events.iter().position(|e| e["t"] == "game-over").unwrap();
    let started_at = event(&honest, "started")["at"].as_i64().unwrap();

    // Claimed half a second early: black still had time.
    let mut early = honest.clone();
    early["events"][over]["at"] = json!(started_at + 500);
    early["events"][over]["d"]["clocks"]["black"] = json!(500);
    verify_rejected(&early).await;

    // The same clocks but no time to run out: a forged "black ran out".
    let mut forged = honest.clone();
    forged["events"][over]["at"] = json!(started_at + 500);
    verify_rejected(&forged).await;

    // A resignation logged after black's time was gone.
    let mut late = honest.clone();
    late["events"][over]["d"]["reason"] = json!("resign");
    verify_rejected(&late).await;
}

// ---------------------------------------------------------------- untimed games

/// An untimed online room: white created it and is connected; black joined over HTTP only.
async fn white_waits_for_black(server: &TestServer) -> (String, String, Client) {
    let body = json!({"mode": "online", "side": "white"});
    let (_, created) = http(server.addr, "POST", "/api/rooms", Some(body)).await;
    let room = created["room"].as_str().unwrap().to_string();
    let white = Client::join(server.addr, &room, created["token"].as_str()).await;
    let joined = common::join_room(server.addr, &room).await;
    let black = joined["token"].as_str().unwrap().to_string();
    (room, black, white)
}

/// Waits for `claim_at` and claims: the game must end by abandon, for white.
async fn claim_when_allowed(white: &mut Client, claim_at: i64) {
    let wait = claim_at - senet::room::now_ms();
    tokio::time::sleep(Duration::from_millis(wait.max(0) as u64 + 20)).await;
    let events = white.ok("claim-victory", Value::Null).await;
    let over = events.iter().find(|e| e["t"] == "game-over").unwrap();
    assert_eq!(
        (&over["d"]["winner"], &over["d"]["reason"]),
        (&json!("white"), &json!("abandon"))
    );
}

fn claim_at(presence: &Value) -> i64 {
    presence["d"]["black"]["claim_at"]
        .as_i64()
        .unwrap_or_else(|| panic!("no countdown for black: {presence}"))
}

#[tokio::test]
async fn a_first_mover_who_never_connects_can_be_claimed_against() {
    let server = TestServer::start_with(|config| {
        config.abandon_after = Duration::from_millis(500);
    })
    .await;
    let (_, _, mut white) = white_waits_for_black(&server).await;
    white.wait_for("started").await;
    // Worked out in the same commit as `started`: nobody had to come or go.
    let presence = white.next().await;
    assert_eq!(presence["t"], "presence", "{presence}");
    assert_eq!(presence["d"]["black"]["connected"], false);
    claim_when_allowed(&mut white, claim_at(&presence)).await;
}

#[tokio::test]
async fn a_blinking_absent_player_does_not_restart_the_countdown() {
    let server = TestServer::start_with(|config| {
        config.abandon_after = Duration::from_millis(1_500);
    })
    .await;
    let (room, black, mut white) = white_waits_for_black(&server).await;
    let first = claim_at(&white.wait_for("presence").await);
    for _ in 0..2 {
        let mut blink = Client::join(server.addr, &room, Some(&black)).await;
        assert_eq!(blink.state["players"]["black"]["claim_at"], first);
        blink.close_and_wait(&mut white).await;
        assert_eq!(white.sync().await["players"]["black"]["claim_at"], first);
    }
    // Back for good, but the turn is not over: the countdown still runs out.
    let _black = Client::join(server.addr, &room, Some(&black)).await;
    claim_when_allowed(&mut white, first).await;
}

#[tokio::test]
async fn a_connected_side_that_does_not_play_can_be_claimed_against_in_untimed_games() {
    let server = TestServer::start_with(|config| {
        config.idle_turn_after = Duration::from_millis(800);
    })
    .await;
    let (room, black, mut white) = white_waits_for_black(&server).await;
    let mut black = Client::join(server.addr, &room, Some(&black)).await;
    let state = black.sync().await;
    assert_eq!(state["players"]["black"]["connected"], true);
    let at = state["players"]["black"]["claim_at"].as_i64().unwrap();
    white
        .refused("claim-victory", Value::Null, "cannot_claim")
        .await;
    claim_when_allowed(&mut white, at).await;
}

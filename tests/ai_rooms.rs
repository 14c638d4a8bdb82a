//! Rooms against the computer, over real sockets on real SQLite: whole games
//! at each level with the bot's every move checked against the AI, the
//! computer throwing first for a white player, no draws, resign, a new game,
//! and a SIGKILLed server finishing a game after restart.

mod common;

use std::net::SocketAddr;

use common::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use senet::ai::{Level, choose_move};
use senet::engine::{Position, Roll};
use senet::room::bot::bot_seed;
use serde_json::{Value, json};

async fn create_ai_room(addr: SocketAddr, side: &str, level: &str) -> Value {
    let body = json!({"mode": "ai", "side": side, "level": level});
    let (status, created) = http(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// Connects the room's person with their token.
async fn person(addr: SocketAddr, created: &Value) -> Client {
    let room = created["room"].as_str().unwrap();
    Client::join(addr, room, created["token"].as_str()).await
}

/// Plays the person's side with random legal moves until the game is over
/// or `max_actions` actions were made; waits for the computer in between.
/// Returns the final state.
async fn play_person(client: &mut Client, rng: &mut ChaCha8Rng, max_actions: usize) -> Value {
    let me = client.seat.clone();
    let mut actions = 0;
    loop {
        let state = client.sync().await;
        if state["phase"] == "over" || actions == max_actions {
            return state;
        }
        if state["turn"] != me.as_str() {
            client.next().await; // the computer's next event
            continue;
        }
        if state["phase"] == "roll" {
            client.ok("roll", Value::Null).await;
        } else {
            let legal = state["legal"].as_array().unwrap();
            let from = legal[rng.random_range(0..legal.len())]["from"].clone();
            client.ok("move", json!({ "from": from })).await;
        }
        actions += 1;
    }
}

/// Replays a record and checks that every move of the computer's side is
/// exactly what the AI chooses for that position and throw with the bot's
/// own seed; returns how many moves were checked.
fn check_bot_moves(record: &Value, bot_side: &str, level: Level) -> usize {
    let room = record["room"].as_str().unwrap();
    let mut position = Position::start();
    let mut throw = None;
    let mut checked = 0;
    for event in record["events"].as_array().unwrap() {
        let d = &event["d"];
        match event["t"].as_str().unwrap() {
            "rolled" => {
                let value = Roll::new(d["value"].as_u64().unwrap() as u8).unwrap();
                throw = Some((value, d["n"].as_u64().unwrap() as u32));
            }
            "moved" => {
                let (roll, n) = throw.take().unwrap();
                if d["side"] == bot_side {
                    let chosen = choose_move(&position, roll, level, bot_seed(room, n)).unwrap();
                    assert_eq!(u64::from(chosen.from), d["from"], "the bot's move {event}");
                    checked += 1;
                }
                position = d["position"].as_str().unwrap().parse().unwrap();
            }
            "passed" => {
                throw = None;
                position = position.pass();
            }
            _ => {}
        }
    }
    checked
}

#[tokio::test]
async fn games_against_each_level_reach_the_end_and_the_bot_plays_what_the_ai_chooses() {
    let server = TestServer::start().await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    // `medium` plays to the end in the restart test.
    let games = [("white", Level::Easy), ("black", Level::Hard)];
    for (side, level) in games {
        let created = create_ai_room(server.addr, side, level.name()).await;
        assert_eq!(created["seat"], side);
        let room = created["room"].as_str().unwrap().to_string();
        let mut client = person(server.addr, &created).await;
        assert_eq!(
            (
                client.state["mode"].as_str(),
                client.state["level"].as_str()
            ),
            (Some("ai"), Some(level.name()))
        );
        let end = play_person(&mut client, &mut rng, usize::MAX).await;
        assert_eq!(end["result"]["reason"], "borne-off", "{end}");

        let record = record(server.addr, &room).await;
        assert_eq!(
            (record["mode"].as_str(), record["level"].as_str()),
            (Some("ai"), Some(level.name()))
        );
        let bot_side = if side == "black" { "white" } else { "black" };
        let checked = check_bot_moves(&record, bot_side, level);
        assert!(checked > 10, "only {checked} bot moves");
        verify_accepted(&record).await;

        let (_, summary) = http(server.addr, "GET", &format!("/api/rooms/{room}"), None).await;
        assert_eq!(
            (
                summary["mode"].as_str(),
                summary["level"].as_str(),
                summary["status"].as_str()
            ),
            (Some("ai"), Some(level.name()), Some("finished"))
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn the_computer_throws_first_for_a_white_player_and_only_once_they_are_here() {
    let server = TestServer::start().await;
    let created = create_ai_room(server.addr, "white", "easy").await;
    let room = created["room"].as_str().unwrap();
    // Nobody is connected: the computer waits for its person.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let before = record(server.addr, room).await;
    let kinds: Vec<&str> = before["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["t"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["started", "client-seed"],
        "the computer's seed only"
    );

    let mut client = person(server.addr, &created).await;
    assert_eq!(client.seat, "white");
    let first = loop {
        let event = client.next().await;
        if is_event(&event) && event["t"] != "presence" {
            break event;
        }
    };
    assert_eq!(
        (first["t"].as_str(), first["d"]["side"].as_str()),
        (Some("rolled"), Some("black")),
        "{first}"
    );
    // The computer's seat counts as present; nobody can take it.
    let state = client.sync().await;
    assert_eq!(state["players"]["black"]["connected"], true, "{state}");
    let (status, body) = http(
        server.addr,
        "POST",
        &format!("/api/rooms/{room}/join"),
        Some(json!({})),
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("room_full")));
    server.stop().await;
}

#[tokio::test]
async fn no_draws_or_claims_against_the_computer_resign_ends_and_a_new_game_swaps_colours() {
    let server = TestServer::start().await;
    let created = create_ai_room(server.addr, "black", "hard").await;
    let mut client = person(server.addr, &created).await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    play_person(&mut client, &mut rng, 6).await;
    client
        .refused("draw-offer", Value::Null, "draw_not_allowed")
        .await;
    client
        .refused("claim-victory", Value::Null, "cannot_claim")
        .await;
    client
        .refused("rematch", Value::Null, "rematch_not_available")
        .await;

    let events = client.ok("resign", Value::Null).await;
    let over = events.iter().find(|e| e["t"] == "game-over").unwrap();
    assert_eq!(
        (over["d"]["winner"].as_str(), over["d"]["reason"].as_str()),
        (Some("white"), Some("resign"))
    );

    // One ask is enough: the new room is open at once, colours swapped.
    client.ok("rematch", Value::Null).await;
    let seat = client.reply_of_type("seat").await;
    assert_eq!(seat["d"]["seat"], "white", "{seat}");
    let next_room = seat["d"]["room"].as_str().unwrap();
    let (_, summary) = http(server.addr, "GET", &format!("/api/rooms/{next_room}"), None).await;
    assert_eq!(
        (
            summary["mode"].as_str(),
            summary["level"].as_str(),
            summary["status"].as_str()
        ),
        (Some("ai"), Some("hard"), Some("playing"))
    );

    // Same token, new room: the computer is black now and throws first.
    let mut next = Client::join(server.addr, next_room, seat["d"]["token"].as_str()).await;
    assert_eq!(next.seat, "white");
    let rolled = next.wait_for("rolled").await;
    assert_eq!(rolled["d"]["side"], "black");
    play_person(&mut next, &mut rng, 4).await;
    next.ok("resign", Value::Null).await;
    assert_eq!(next.sync().await["result"]["winner"], "black");
    server.stop().await;
}

#[tokio::test]
async fn a_killed_server_finishes_an_ai_game_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("senet.db");
    let server = ChildServer::start(&database, &[]).await;
    let created = create_ai_room(server.addr, "black", "medium").await;
    let room = created["room"].as_str().unwrap().to_string();
    let mut client = person(server.addr, &created).await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let before = play_person(&mut client, &mut rng, 30).await;
    assert_eq!(before["result"], Value::Null, "the game is still on");
    server.kill().await;
    assert_eq!(client.closed().await, Closed::NoCloseFrame);

    let server = ChildServer::start(&database, &[]).await;
    let mut client = person(server.addr, &created).await;
    assert_eq!(client.state["position"], before["position"]);
    let end = play_person(&mut client, &mut rng, usize::MAX).await;
    assert_eq!(end["result"]["reason"], "borne-off", "{end}");

    let record = record(server.addr, &room).await;
    assert!(check_bot_moves(&record, "white", Level::Medium) > 10);
    verify_accepted(&record).await;
    // The debug log has the AI's decisions, never the person's token.
    let log = std::fs::read_to_string(database.with_extension("log")).unwrap();
    assert!(log.contains("AI decision"));
    assert!(!log.contains(created["token"].as_str().unwrap()));
    server.kill().await;
}

/// Rooms against `hard` with one search allowed at a time: their searches
/// queue up, and an online room beside them plays on while the queue is still
/// not drained, because searches never run on the async runtime and wait for
/// their turn without holding a room task. Then every queued search is done.
#[tokio::test]
async fn a_queue_of_searches_holds_up_no_other_room() {
    const AI_ROOMS: usize = 8;
    let server = TestServer::start_with(|config| config.ai_max_concurrent = 1).await;
    let addr = server.addr;
    let mut people = Vec::new();
    for _ in 0..AI_ROOMS {
        let created = create_ai_room(addr, "white", "hard").await;
        let mut client = person(addr, &created).await;
        // The computer threw; its move now waits for a search.
        client.wait_for("rolled").await;
        people.push(client);
    }

    let Table {
        mut black,
        mut white,
        ..
    } = online_table(addr).await;
    let mut slowest = std::time::Duration::ZERO;
    for _ in 0..40 {
        let state = black.sync().await;
        if state["phase"] == "over" {
            break;
        }
        let mover = if state["turn"] == "black" {
            &mut black
        } else {
            &mut white
        };
        let started = std::time::Instant::now();
        if state["phase"] == "roll" {
            mover.ok("roll", Value::Null).await;
        } else {
            let from = state["legal"][0]["from"].clone();
            mover.ok("move", json!({ "from": from })).await;
        }
        slowest = slowest.max(started.elapsed());
    }
    eprintln!("slowest of 40 online answers beside {AI_ROOMS} queued hard searches: {slowest:?}");

    let mut still_waiting = 0;
    for client in &mut people {
        if client.sync().await["phase"] == "move" {
            still_waiting += 1;
        }
    }
    assert!(
        still_waiting > 0,
        "the online game ran after the queue drained"
    );
    for client in &mut people {
        while !client.events.iter().any(|e| e["t"] == "moved") {
            client.next().await;
        }
    }
    server.stop().await;
}

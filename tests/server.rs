//! The room server end to end: real sockets (tokio-tungstenite clients),
//! a real SQLite file, a real server on 127.0.0.1:0. Nothing is mocked.

mod common;

use std::collections::HashMap;

use common::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

/// Two seated players (and a spectator) in a fresh online room.
struct Table {
    room: String,
    black: Client,
    white: Client,
}

async fn online_table(server: &TestServer) -> Table {
    let created = create_room(server.addr, "online", "black").await;
    let room = created["room"].as_str().unwrap().to_string();
    let joined = join_room(server.addr, &room).await;
    assert_eq!(joined["seat"], "white");
    let black = Client::join(server.addr, &room, created["token"].as_str()).await;
    let white = Client::join(server.addr, &room, joined["token"].as_str()).await;
    assert_eq!(
        (black.seat.as_str(), white.seat.as_str()),
        ("black", "white")
    );
    Table { room, black, white }
}

impl Table {
    fn mover(&mut self, side: &str) -> &mut Client {
        match side {
            "black" => &mut self.black,
            _ => &mut self.white,
        }
    }
}

/// Plays throws and random legal moves until the game ends or `max_actions`
/// actions were made; returns the winner if it ended.
async fn play_random(
    table: &mut Table,
    rng: &mut ChaCha8Rng,
    max_actions: usize,
) -> Option<String> {
    let mut turn = table.black.sync().await["turn"]
        .as_str()
        .unwrap()
        .to_string();
    for _ in 0..max_actions {
        let events = table.mover(&turn).ok("roll", Value::Null).await;
        let rolled = events.iter().rfind(|e| e["t"] == "rolled").unwrap();
        let legal = rolled["d"]["legal"].as_array().unwrap().clone();
        let events = if legal.is_empty() {
            events
        } else {
            let choice = &legal[rng.random_range(0..legal.len())];
            let from = choice["from"].clone();
            table.mover(&turn).ok("move", json!({ "from": from })).await
        };
        for event in &events {
            match event["t"].as_str().unwrap() {
                "game-over" => return Some(event["d"]["winner"].as_str().unwrap().into()),
                "moved" | "passed" => turn = event["d"]["next"].as_str().unwrap().into(),
                _ => {}
            }
        }
    }
    None
}

#[tokio::test]
async fn random_games_reach_the_end_and_every_watcher_sees_the_same_events() {
    let server = TestServer::start().await;
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..3 {
        let mut table = online_table(&server).await;
        let mut spectator = Client::join(server.addr, &table.room, None).await;
        assert_eq!(spectator.seat, "spectator");
        let start_v = spectator.last_v();
        let winner = play_random(&mut table, &mut rng, 2_000).await;
        let winner = winner.expect("a random game ends within 2000 actions");
        assert!(winner == "black" || winner == "white");
        let last = table.black.sync().await["v"].as_u64().unwrap();
        for client in [&mut table.black, &mut table.white, &mut spectator] {
            client.wait_for_v(last).await;
        }
        let after_start = |c: &Client| -> Vec<Value> {
            c.events
                .iter()
                .filter(|e| e["d"]["v"].as_u64() > Some(start_v))
                .cloned()
                .collect()
        };
        let seen = after_start(&spectator);
        assert_eq!(after_start(&table.black), seen);
        assert_eq!(after_start(&table.white), seen);
        let versions: Vec<u64> = seen.iter().map(|e| e["d"]["v"].as_u64().unwrap()).collect();
        let consecutive: Vec<u64> = (start_v + 1..=last).collect();
        assert_eq!(versions, consecutive, "versions are consecutive");
        let over = seen.last().unwrap();
        assert_eq!(over["t"], "game-over");
        assert_eq!(over["d"]["reason"], "borne-off");
        assert_eq!(over["d"]["seed"].as_str().unwrap().len(), 64);
        let state = spectator.sync().await;
        assert_eq!(state["phase"], "over");
        assert_eq!(state["result"]["winner"], winner.as_str());
    }
}

#[tokio::test]
async fn local_rooms_start_at_once_and_one_token_plays_both_sides() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "local", "random").await;
    assert_eq!(created["seat"], "both");
    let room = created["room"].as_str().unwrap();
    let mut both = Client::join(server.addr, room, created["token"].as_str()).await;
    assert_eq!(both.seat, "both");
    assert_eq!(both.state["phase"], "roll");
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut turns: HashMap<String, usize> = HashMap::new();
    for _ in 0..40 {
        let turn = both.sync().await["turn"].as_str().unwrap().to_string();
        *turns.entry(turn).or_default() += 1;
        let events = both.ok("roll", Value::Null).await;
        let legal = events.iter().rfind(|e| e["t"] == "rolled").unwrap()["d"]["legal"].clone();
        let legal = legal.as_array().unwrap();
        if !legal.is_empty() {
            let from = legal[rng.random_range(0..legal.len())]["from"].clone();
            both.ok("move", json!({ "from": from })).await;
        }
    }
    assert!(turns.len() == 2, "both sides moved: {turns:?}");
    both.refused("draw-offer", Value::Null, "draw_not_allowed")
        .await;
}

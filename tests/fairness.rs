//! Commit before learning, end to end (real server, sockets, SQLite): in every kind of room
//! (online, local, against the computer, and their rematches) the log shows `seed_hash` (in
//! `started`) before every client seed, client seeds are taken only until the first throw, and
//! `senet verify` accepts such a record and rejects one whose order was changed.

mod common;

use std::collections::HashMap;
use std::net::SocketAddr;

use common::*;
use serde_json::{Value, json};

/// The versions of the record's events of type `t`.
fn versions_of(record: &Value, t: &str) -> Vec<u64> {
    record["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["t"] == t)
        .map(|e| e["v"].as_u64().unwrap())
        .collect()
}

/// `started` (with `seed_hash`) comes before every client seed, and every client seed before
/// the first throw; the record's `client_seeds` are the last the log set for each side.
fn assert_committed_first(record: &Value) -> HashMap<String, String> {
    let events = record["events"].as_array().unwrap();
    let started: Vec<&Value> = events.iter().filter(|e| e["t"] == "started").collect();
    let [started] = started[..] else {
        panic!("one started: {record}")
    };
    assert_eq!(started["d"]["seed_hash"], record["seed_hash"]);
    assert!(started["d"].get("client_seeds").is_none(), "{started}");
    let started = started["v"].as_u64().unwrap();
    let first_throw = versions_of(record, "rolled").first().copied();
    let mut seeds = HashMap::from([
        ("black".into(), String::new()),
        ("white".into(), String::new()),
    ]);
    for seed in events.iter().filter(|e| e["t"] == "client-seed") {
        let v = seed["v"].as_u64().unwrap();
        assert!(
            v > started && first_throw.is_none_or(|n| v < n),
            "{seed} in {record}"
        );
        let side = seed["d"]["side"].as_str().unwrap().to_string();
        seeds.insert(side, seed["d"]["client_seed"].as_str().unwrap().into());
    }
    assert_eq!(record["client_seeds"], json!(seeds));
    seeds
}

/// Throws once (and moves if it can), so that the client seeds are locked, then resigns.
async fn throw_then_resign(mover: &mut Client) {
    let events = mover.ok("roll", Value::Null).await;
    let rolled = events.iter().rfind(|e| e["t"] == "rolled").unwrap();
    if let Some(legal) = rolled["d"]["legal"].as_array().unwrap().first() {
        mover.ok("move", json!({ "from": legal["from"] })).await;
    }
    mover.ok("resign", Value::Null).await;
}

async fn seat_of(client: &mut Client) -> Value {
    client.reply_of_type("seat").await
}

#[tokio::test]
async fn online_rooms_and_their_rematches_take_client_seeds_after_the_seed_hash() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let created = create_room(addr, "online", "black").await;
    let room = created["room"].as_str().unwrap().to_string();
    let mut black = Client::join(addr, &room, created["token"].as_str()).await;
    // Before the game starts nothing has published the seed's hash in the log.
    black
        .refused("seed", json!({"client_seed": "early"}), "game_not_started")
        .await;
    let joined = join_room(addr, &room).await;
    let mut white = Client::join(addr, &room, joined["token"].as_str()).await;
    assert_eq!(white.state["client_seeds_open"], true);
    assert_eq!(
        white.state["client_seeds"],
        json!({"black": "", "white": ""})
    );
    let mut spectator = Client::join(addr, &room, None).await;
    spectator
        .refused("seed", json!({"client_seed": "x"}), "not_seated")
        .await;
    black.ok("seed", json!({"client_seed": "b1"})).await;
    white.ok("seed", json!({"client_seed": "w1"})).await;
    // Until the first throw a seat may change its mind; the last one counts.
    let events = black.ok("seed", json!({"client_seed": "b2"})).await;
    let seeded = events.last().unwrap();
    assert_eq!(seeded["t"], "client-seed");
    assert_eq!(seeded["d"]["side"], "black");
    black
        .refused("seed", json!({"client_seed": "a:b"}), "bad_request")
        .await;
    throw_then_resign_after_first(&mut black, &mut white).await;
    let first = record(addr, &room).await;
    let seeds = assert_committed_first(&first);
    assert_eq!(
        (seeds["black"].as_str(), seeds["white"].as_str()),
        ("b2", "w1")
    );
    verify_accepted(&first).await;

    // The rematch's room has its own seed, logged before anyone's new client seed: the old
    // ones are not carried over.
    black.ok("rematch", Value::Null).await;
    white.ok("rematch", Value::Null).await;
    let (seat_b, seat_w) = (seat_of(&mut black).await, seat_of(&mut white).await);
    let next = seat_b["d"]["room"].as_str().unwrap().to_string();
    let mut new_white = Client::join(addr, &next, seat_b["d"]["token"].as_str()).await;
    let mut new_black = Client::join(addr, &next, seat_w["d"]["token"].as_str()).await;
    assert_eq!(
        new_black.state["client_seeds"],
        json!({"black": "", "white": ""})
    );
    assert_eq!(new_black.state["client_seeds_open"], true);
    new_white
        .ok("seed", json!({"client_seed": "w-again"}))
        .await;
    throw_then_resign(&mut new_black).await;
    let rematch = record(addr, &next).await;
    let seeds = assert_committed_first(&rematch);
    // Black threw before sending a seed: it plays with the empty default, recorded as such.
    assert_eq!(
        (seeds["black"].as_str(), seeds["white"].as_str()),
        ("", "w-again")
    );
    assert_ne!(rematch["seed_hash"], first["seed_hash"]);
    verify_accepted(&rematch).await;
}

/// Black throws once, white refuses to be late with a seed, black resigns.
async fn throw_then_resign_after_first(black: &mut Client, white: &mut Client) {
    black.ok("roll", Value::Null).await;
    white
        .refused("seed", json!({"client_seed": "late"}), "client_seed_locked")
        .await;
    assert_eq!(white.sync().await["client_seeds_open"], false);
    black.ok("resign", Value::Null).await;
}

#[tokio::test]
async fn local_rooms_set_both_seeds_with_one_message() {
    let server = TestServer::start().await;
    let (room, mut both) = local_client(server.addr).await;
    let events = both.ok("seed", json!({"client_seed": "mine"})).await;
    assert_eq!(events.iter().filter(|e| e["t"] == "client-seed").count(), 2);
    throw_then_resign(&mut both).await;
    let record = record(server.addr, &room).await;
    let seeds = assert_committed_first(&record);
    assert_eq!(
        (seeds["black"].as_str(), seeds["white"].as_str()),
        ("mine", "mine")
    );
    verify_accepted(&record).await;
}

async fn create_ai_room(addr: SocketAddr) -> Value {
    let body = json!({"mode": "ai", "side": "black", "level": "easy"});
    let (status, created) = http(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

/// The computer's client seed comes from the OS generator after `started`, never the level's
/// name, and a new game draws a new one.
#[tokio::test]
async fn the_computer_draws_its_client_seed_after_the_seed_hash_in_every_game() {
    let server = TestServer::start().await;
    let created = create_ai_room(server.addr).await;
    let room = created["room"].as_str().unwrap();
    let mut person = Client::join(server.addr, room, created["token"].as_str()).await;
    let computer_seed = person.state["client_seeds"]["white"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(computer_seed.len(), 32, "128 bits in hex: {computer_seed}");
    person.ok("seed", json!({"client_seed": "person"})).await;
    throw_then_resign(&mut person).await;
    let first = record(server.addr, room).await;
    let seeds = assert_committed_first(&first);
    assert_eq!(versions_of(&first, "started"), [1]);
    assert_eq!(
        versions_of(&first, "client-seed")[0],
        2,
        "right after started"
    );
    assert_eq!(
        (seeds["black"].as_str(), seeds["white"].as_str()),
        ("person", computer_seed.as_str())
    );
    verify_accepted(&first).await;

    person.ok("rematch", Value::Null).await;
    let seat = seat_of(&mut person).await;
    let next = seat["d"]["room"].as_str().unwrap();
    let mut again = Client::join(server.addr, next, seat["d"]["token"].as_str()).await;
    assert_eq!(again.seat, "white");
    let new_seed = again.state["client_seeds"]["black"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(new_seed.len(), 32);
    assert_ne!(new_seed, computer_seed);
    again.ok("resign", Value::Null).await;
    let rematch = record(server.addr, next).await;
    assert_committed_first(&rematch);
    verify_accepted(&rematch).await;
}

/// Renumbers a record's events 1, 2, 3, ... after they were moved about.
fn renumbered(mut record: Value) -> Value {
    for (v, event) in record["events"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        event["v"] = json!(v + 1);
    }
    record
}

#[tokio::test]
async fn verify_rejects_a_record_whose_client_seeds_are_out_of_order() {
    let record = created_and_finished_local_game().await;
    verify_accepted(&record).await;
    let position = |t: &str| {
        record["events"]
            .as_array()
            .unwrap()
            .iter()
            .position(|e| e["t"] == t)
            .unwrap()
    };
    let (seed_at, rolled_at) = (position("client-seed"), position("rolled"));

    // A client seed logged before the seed's hash.
    let mut early = record.clone();
    let events = early["events"].as_array_mut().unwrap();
    let seed = events.remove(seed_at);
    events.insert(0, seed);
    verify_rejected(&renumbered(early)).await;

    // A client seed logged after the first throw (the throws it would change were already made).
    let mut late = record.clone();
    let events = late["events"].as_array_mut().unwrap();
    let seed = events.remove(seed_at);
    events.insert(rolled_at, seed);
    verify_rejected(&renumbered(late)).await;

    // Client seeds that are not the log's.
    let mut other = record.clone();
    other["client_seeds"]["black"] = json!("t");
    verify_rejected(&other).await;
}

/// A finished online game as stored before client seeds came after `started` (issue 13, item 6):
/// `started` carries both players' seeds (`b-old`, `w-old`), and there is no `client-seed` event.
const LEGACY_RECORD: &str = include_str!("fixtures/legacy-record.json");

/// Such a record still verifies (its throws are computed with the seeds `started` carried) and
/// says its order is the legacy one; with other seeds in `started` its throws do not verify.
#[tokio::test]
async fn a_record_from_before_client_seeds_came_after_started_verifies_as_legacy() {
    let legacy: Value = serde_json::from_str(LEGACY_RECORD).unwrap();
    let verdict = verify_accepted(&legacy).await;
    assert_eq!(verdict["order"], "legacy", "{verdict}");
    assert!(verdict["throws"].as_u64().unwrap() >= 6, "{verdict}");

    let mut other = legacy.clone();
    other["events"][0]["d"]["client_seeds"]["white"] = json!("w-other");
    other["client_seeds"]["white"] = json!("w-other");
    verify_rejected(&other).await;

    let current = created_and_finished_local_game().await;
    let verdict = verify_accepted(&current).await;
    assert_eq!(verdict.get("order"), None, "{verdict}");
}

/// A game stored by a server from before (its seats' `*_client_seed` columns held the client
/// seeds then) is served by the record endpoint as it was, with the client seeds of its
/// `started`, and verifies.
#[tokio::test]
async fn the_record_endpoint_serves_a_legacy_game_that_verifies() {
    let legacy: Value = serde_json::from_str(LEGACY_RECORD).unwrap();
    let server = TestServer::start().await;
    let events: Vec<senet::store::StoredEvent> = legacy["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| senet::store::StoredEvent {
            v: e["v"].as_u64().unwrap(),
            at: e["at"].as_i64().unwrap(),
            kind: e["t"].as_str().unwrap().to_string(),
            data: e["d"].to_string(),
        })
        .collect();
    let seed = senet::fairness::parse_seed(legacy["seed"].as_str().unwrap()).unwrap();
    let row = senet::store::RoomRow {
        id: legacy["room"].as_str().unwrap().to_string(),
        mode: senet::protocol::Mode::Online,
        seed,
        created_at: events[0].at,
        black: Some(seat("black token", "b-old")),
        white: Some(seat("white token", "w-old")),
        clock: None,
    };
    server
        .rooms
        .store()
        .log
        .create_room(&row, &events, None)
        .await
        .unwrap();
    let served = record(server.addr, &row.id).await;
    assert_eq!(served, legacy);
    verify_accepted(&served).await;
}

/// A local game of today's kind, with a client seed, finished by resignation: its record.
async fn created_and_finished_local_game() -> Value {
    let server = TestServer::start().await;
    let (room, mut both) = local_client(server.addr).await;
    both.ok("seed", json!({"client_seed": "s"})).await;
    throw_then_resign(&mut both).await;
    record(server.addr, &room).await
}

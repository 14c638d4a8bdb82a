//! `GET /api/rooms/{id}/analysis` on a real server: refused while the game
//! is on, answered after its end, and computed only once (the second answer
//! is read from the store: `senet_analysis_seconds` counts one analysis).
//! The hint of practice rooms: the engine's move from the position and the
//! throw, logged before it is shown, refused in online rooms.

mod common;

use common::*;
use senet::engine::{Position, Roll};
use serde_json::{Value, json};

/// How many analyses this process has computed, from `/metrics`.
async fn analyses_computed(addr: std::net::SocketAddr) -> u64 {
    metrics_text(addr)
        .await
        .lines()
        .find_map(|line| {
            line.strip_prefix("senet_analysis_seconds_count")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn a_finished_game_is_analysed_once_and_a_live_one_never() {
    let server = TestServer::start().await;
    let (room, mut both) = local_client(server.addr).await;
    let path = format!("/api/rooms/{room}/analysis");
    let mut throws = 0;
    for _ in 0..6 {
        let events = both.ok("roll", Value::Null).await;
        throws += 1;
        let rolled = events.iter().rfind(|e| e["t"] == "rolled").unwrap();
        if let Some(first) = rolled["d"]["legal"].as_array().unwrap().first() {
            both.ok("move", json!({ "from": first["from"] })).await;
        }
    }

    let (status, body) = http(server.addr, "GET", &path, None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("not_finished")),
        "{body}"
    );

    both.ok("resign", Value::Null).await;
    let (status, first) = http(server.addr, "GET", &path, None).await;
    assert_eq!(status, 200, "{first}");
    let analysed = first["throws"].as_array().unwrap();
    assert_eq!(analysed.len(), throws, "{first}");
    for throw in analysed {
        let before = throw["before"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&before), "{throw}");
        let judged = throw["kind"] == "decision";
        assert_eq!(throw["label"].is_string(), judged, "{throw}");
    }
    let computed = analyses_computed(server.metrics_addr).await;
    assert!(computed >= 1, "the first request computed nothing");

    let (status, second) = http(server.addr, "GET", &path, None).await;
    assert_eq!((status, &second), (200, &first));
    assert_eq!(
        analyses_computed(server.metrics_addr).await,
        computed,
        "the second request recomputed"
    );

    let (status, body) = http(server.addr, "GET", "/api/rooms/unknown/analysis", None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("room_not_found"))
    );
}

/// As the person of a practice room (the computer or nobody else playing), throws until a throw
/// leaves a choice of moves (playing the first legal move otherwise); answers the state then.
async fn throw_with_a_choice(client: &mut Client, side: &str) -> Value {
    loop {
        let state = client.sync().await;
        assert_ne!(state["phase"], "over", "the game ended first");
        if state["turn"] != side {
            client.next().await; // the computer's next event
        } else if state["phase"] == "roll" {
            client.ok("roll", Value::Null).await;
        } else if state["legal"].as_array().unwrap().len() >= 2 {
            return state;
        } else {
            let from = state["legal"][0]["from"].clone();
            client.ok("move", json!({ "from": from })).await;
        }
    }
}

#[tokio::test]
async fn a_hint_in_an_ai_room_is_the_engines_move_logged_before_it_is_shown() {
    let server = TestServer::start().await;
    let body = json!({"mode": "ai", "side": "black", "level": "easy"});
    let (status, created) = http(server.addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap();
    let mut person = Client::join(server.addr, room, created["token"].as_str()).await;
    let state = throw_with_a_choice(&mut person, "black").await;

    let events = person.ok("hint", Value::Null).await;
    let hinted = events
        .iter()
        .find(|e| e["t"] == "hinted")
        .expect("a hinted event");
    // The engine's move from the position and the throw alone: what the analysis calls best.
    let position: Position = state["position"].as_str().unwrap().parse().unwrap();
    let roll = Roll::new(state["throw"]["value"].as_u64().unwrap() as u8).unwrap();
    let (engine, _) = senet::ai::odds(&position, roll).best().unwrap();
    let v = hinted["d"]["v"].as_u64().unwrap();
    // Committed before it was shown: the log already holds it, right after its throw.
    let logged = record(server.addr, room).await;
    let events = logged["events"].as_array().unwrap();
    let in_log = events.iter().find(|e| e["v"] == v).unwrap();
    let thrown = events.iter().rfind(|e| e["t"] == "rolled").unwrap();
    assert_eq!(in_log["t"], "hinted");
    assert_eq!(
        hinted["d"],
        json!({"side": "black", "n": thrown["d"]["n"], "from": engine.from, "v": v}),
        "only the side, the throw's number and the square"
    );

    // The state shows it; asking again answers without logging again.
    assert_eq!(person.sync().await["hint"], engine.from);
    let again = person.ok("hint", Value::Null).await;
    assert!(again.iter().all(|e| e["t"] != "hinted"), "{again:?}");
    assert_eq!(
        person.last_v(),
        v,
        "nothing was logged for the second request"
    );

    // Playing the throw ends the hint; the finished record passes `senet verify`, which
    // re-decides the hint, and no event before the end holds the seed.
    person.ok("move", json!({ "from": engine.from })).await;
    assert!(person.sync().await["hint"].is_null());
    person.ok("resign", Value::Null).await;
    let finished = record(server.addr, room).await;
    let verdict = verify_accepted(&finished).await;
    assert_eq!(verdict["hints"], 1, "{verdict}");
    let seed = finished["seed"].as_str().unwrap();
    for event in finished["events"].as_array().unwrap() {
        if event["t"] != "game-over" {
            assert!(!event.to_string().contains(seed), "{event}");
        }
    }
}

#[tokio::test]
async fn a_hint_is_refused_in_an_online_room_and_nothing_is_logged() {
    let server = TestServer::start().await;
    let Table {
        room,
        mut black,
        mut white,
    } = online_table(server.addr).await;
    black.ok("roll", Value::Null).await;
    black.refused("hint", Value::Null, "hint_not_allowed").await;
    white.refused("hint", Value::Null, "hint_not_allowed").await;
    let reply = black.refused("hint", Value::Null, "hint_not_allowed").await;
    assert!(
        reply["d"]["message"].as_str().unwrap().contains("practice"),
        "{reply}"
    );
    let logged = record(server.addr, &room).await;
    assert!(
        logged["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["t"] != "hinted"),
        "{logged}"
    );
}

//! The room server end to end: real sockets (tokio-tungstenite clients),
//! a real SQLite file, a real server on 127.0.0.1:0. Nothing is mocked.

mod common;

use std::collections::HashMap;

use common::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

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
        let mut table = online_table(server.addr).await;
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

/// `acks: false` in the hello: the actor's last event carries the action's id and no `ack`
/// follows; the other player gets the same event without the id; a refusal is still an `error`.
#[tokio::test]
async fn a_client_without_acks_finds_its_answer_in_the_event() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "online", "black").await;
    let room = created["room"].as_str().unwrap();
    let joined = join_room(server.addr, room).await;
    let mut black = Client::connect(server.addr, room).await;
    black
        .send(json!({"t": "hello", "d": {"token": created["token"], "acks": false}}))
        .await;
    assert_eq!(black.next_reply().await["t"], "welcome");
    let mut white = Client::join(server.addr, room, joined["token"].as_str()).await;

    black.send(json!({"t": "roll", "d": {"id": "r1"}})).await;
    let answer = loop {
        let frame = black.next().await;
        assert_ne!(frame["t"], "ack", "{frame}");
        if frame["d"]["id"] == "r1" {
            break frame;
        }
    };
    assert!(
        ["rolled", "passed"].contains(&answer["t"].as_str().unwrap()),
        "{answer}"
    );
    let v = answer["d"]["v"].as_u64().unwrap();
    assert_eq!(black.last_v(), v, "the answer is the action's last event");
    black.send(json!({"t": "ping", "d": {"id": "p"}})).await;
    assert_eq!(black.next_reply().await["t"], "pong", "no ack between");

    white.wait_for_v(v).await;
    let seen = white.events.iter().find(|e| e["d"]["v"] == v).unwrap();
    let mut expected = answer.clone();
    expected["d"].as_object_mut().unwrap().remove("id");
    assert_eq!(seen, &expected);

    let refused = black.act("roll", Value::Null).await;
    assert_eq!(refused["t"], "error", "{refused}");
}

/// The state fields an invalid action must not change.
fn game_part(state: &Value) -> Value {
    json!({
        "position": state["position"], "turn": state["turn"], "phase": state["phase"],
        "throw": state["throw"], "legal": state["legal"], "draw_offer": state["draw_offer"],
        "result": state["result"], "v": state["v"],
    })
}

#[tokio::test]
async fn every_bad_input_gets_its_error_and_changes_nothing() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    let mut spectator = Client::join(server.addr, &table.room, None).await;
    let before = game_part(&spectator.sync().await);

    // Frames that cannot be understood, and acting before hello.
    let mut stranger = Client::connect(server.addr, &table.room).await;
    stranger.send_text("{not json".into()).await;
    assert_eq!(stranger.next_reply().await["d"]["code"], "bad_json");
    stranger.send(json!({"t": "fly", "d": {"id": 5}})).await;
    let unknown = stranger.next_reply().await;
    assert_eq!(
        (unknown["d"]["code"].clone(), unknown["d"]["id"].clone()),
        (json!("unknown_type"), json!(5))
    );
    stranger
        .refused_all(&[
            ("roll", Value::Null, "hello_required"),
            ("sync", Value::Null, "hello_required"),
            ("hello", json!({"token": "not a seat"}), "bad_token"),
        ])
        .await;
    let pong = stranger.act("ping", Value::Null).await;
    assert_eq!(pong["t"], "pong");

    // Acting without a seat, out of turn, in the wrong phase.
    spectator.refused("roll", Value::Null, "not_seated").await;
    spectator.refused("resign", Value::Null, "not_seated").await;
    table
        .white
        .refused("roll", Value::Null, "not_your_turn")
        .await;
    table
        .black
        .refused_all(&[
            ("move", json!({"from": 10}), "must_roll"),
            ("move", json!({"from": "ten"}), "bad_request"),
            ("draw-accept", Value::Null, "no_draw_offer"),
            ("draw-decline", Value::Null, "no_draw_offer"),
            ("claim-victory", Value::Null, "cannot_claim"),
            ("rematch", Value::Null, "rematch_not_available"),
            ("hello", json!({}), "bad_request"),
        ])
        .await;
    assert_eq!(game_part(&spectator.sync().await), before);

    // After a throw: a second throw, and moves the rules refuse, with reasons.
    let events = table.black.ok("roll", Value::Null).await;
    let rolled = events.iter().rfind(|e| e["t"] == "rolled").unwrap().clone();
    if events.iter().any(|e| e["t"] == "passed") {
        panic!("the opening throw always has a legal move: {rolled}");
    }
    let thrown = game_part(&spectator.sync().await);
    table
        .black
        .refused("roll", Value::Null, "already_rolled")
        .await;
    table
        .white
        .refused("move", json!({"from": 1}), "not_your_turn")
        .await;
    let wrong = table
        .black
        .refused("move", json!({"from": 1}), "illegal_move")
        .await;
    assert_eq!(wrong["d"]["reason"], "no_own_piece");
    let value = rolled["d"]["value"].as_u64().unwrap();
    let legal: Vec<u64> = rolled["d"]["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["from"].as_u64().unwrap())
        .collect();
    // The throw named each piece it cannot move, with the reason the move is then refused for.
    let named: Vec<(u64, String)> = rolled["d"]["refused"]
        .as_array()
        .map(|refused| {
            refused
                .iter()
                .map(|r| {
                    (
                        r["from"].as_u64().unwrap(),
                        r["reason"].as_str().unwrap().into(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let stuck: Vec<u64> = [2u64, 4, 6, 8, 10]
        .into_iter()
        .filter(|f| !legal.contains(f))
        .collect();
    assert_eq!(
        named.iter().map(|(from, _)| *from).collect::<Vec<_>>(),
        stuck,
        "{rolled}"
    );
    for (from, reason_named) in named {
        let refused = table
            .black
            .refused("move", json!({"from": from}), "illegal_move")
            .await;
        let reason = refused["d"]["reason"].as_str().unwrap();
        // From the start only these can stop a black piece.
        assert!(
            ["occupied_by_own", "blocked"].contains(&reason),
            "{from}+{value}: {refused}"
        );
        assert_eq!(reason, reason_named, "{from}+{value}");
        assert!(!refused["d"]["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(game_part(&spectator.sync().await), thrown);

    // Anything after the game is over.
    table.white.ok("resign", Value::Null).await;
    let over = game_part(&spectator.sync().await);
    table.black.refused("roll", Value::Null, "game_over").await;
    table
        .white
        .refused("resign", Value::Null, "game_over")
        .await;
    table
        .black
        .refused("draw-offer", Value::Null, "game_over")
        .await;
    assert_eq!(game_part(&spectator.sync().await), over);
}

#[tokio::test]
async fn http_errors_are_clear() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let post =
        |path: &'static str, body: Value| async move { http(addr, "POST", path, Some(body)).await };
    let (status, body) = post("/api/rooms", json!({"mode": "ai", "level": "expert"})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")));
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("easy, medium or hard")
    );
    let (status, body) = post("/api/rooms", json!({"mode": "online", "level": "hard"})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")));
    assert!(body["message"].as_str().unwrap().contains("\"ai\""));
    let (status, _) = post("/api/rooms", json!({"mode": "chess"})).await;
    assert_eq!(status, 400);
    // A client seed before the room exists would be learnt before its seed is committed.
    let (status, body) = post("/api/rooms", json!({"mode": "online", "client_seed": "s"})).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")));
    assert!(body["message"].as_str().unwrap().contains("client_seed"));
    let (status, body) = http(addr, "POST", "/api/rooms", None).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("bad_request")));

    let unknown = "0123456789abcdef0123456789abcdef";
    for path in [
        format!("/api/rooms/{unknown}"),
        format!("/api/rooms/{unknown}/record"),
        "/api/rooms/nonsense".into(),
    ] {
        let (status, body) = http(addr, "GET", &path, None).await;
        assert_eq!(
            (status, body["error"].as_str()),
            (404, Some("room_not_found")),
            "{path}"
        );
    }
    let (status, _) = http(
        addr,
        "POST",
        &format!("/api/rooms/{unknown}/join"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 404);
    let ws = tokio_tungstenite::connect_async(format!("ws://{addr}/ws/rooms/{unknown}")).await;
    match ws {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 404)
        }
        other => panic!(
            "expected 404 before the upgrade, got {:?}",
            other.map(|_| ())
        ),
    }

    let created = create_room(addr, "online", "white").await;
    let room = created["room"].as_str().unwrap();
    let (status, body) = http(
        addr,
        "POST",
        &format!("/api/rooms/{room}/join"),
        Some(json!({"side": "white"})),
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("room_full")));
    let joined = join_room(addr, room).await;
    assert_eq!(joined["seat"], "black");
    let (status, body) = http(
        addr,
        "POST",
        &format!("/api/rooms/{room}/join"),
        Some(json!({})),
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (409, Some("room_full")));
    let (status, summary) = http(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!((status, summary["status"].as_str()), (200, Some("playing")));
    let (status, record) = http(addr, "GET", &format!("/api/rooms/{room}/record"), None).await;
    assert_eq!(status, 200);
    assert!(
        record.get("seed").is_none(),
        "no seed before the end: {record}"
    );
    let (status, _) = http(addr, "GET", "/healthz", None).await;
    assert_eq!(status, 200);
    for secret in [
        created["token"].as_str().unwrap(),
        joined["token"].as_str().unwrap(),
    ] {
        assert!(!summary.to_string().contains(secret) && !record.to_string().contains(secret));
    }
}

#[tokio::test]
async fn oversized_frames_and_floods_close_the_connection() {
    let server = TestServer::start_with(|config| config.max_messages_per_second = 20).await;
    let created = create_room(server.addr, "local", "black").await;
    let room = created["room"].as_str().unwrap();

    let mut big = Client::join(server.addr, room, None).await;
    big.send_text(format!(
        r#"{{"t":"ping","d":{{"id":"{}"}}}}"#,
        "x".repeat(5000)
    ))
    .await;
    assert_eq!(big.closed().await, Closed::Code(1009));

    let mut flood = Client::join(server.addr, room, None).await;
    for _ in 0..25 {
        flood.send(json!({"t": "ping"})).await;
    }
    assert_eq!(flood.closed().await, Closed::Code(1008));

    // A client within the limit is never closed, and the room carries on.
    let mut calm = Client::join(server.addr, room, created["token"].as_str()).await;
    for _ in 0..15 {
        assert_eq!(calm.act("ping", Value::Null).await["t"], "pong");
    }
    calm.ok("roll", Value::Null).await;
}

#[tokio::test]
async fn ping_frames_count_toward_the_rate_limit() {
    let server = TestServer::start_with(|config| config.max_messages_per_second = 20).await;
    let created = create_room(server.addr, "local", "black").await;
    let room = created["room"].as_str().unwrap();
    let mut pinger = Client::join(server.addr, room, None).await;
    for _ in 0..25 {
        pinger.send_ping_frame().await;
    }
    assert_eq!(pinger.closed().await, Closed::Code(1008));
}

#[tokio::test]
async fn the_sockets_of_one_seat_share_one_message_budget() {
    let server = TestServer::start_with(|config| config.max_messages_per_second = 20).await;
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    let mut sockets = Vec::new();
    for _ in 0..4 {
        sockets.push(Client::join(server.addr, room, token).await);
    }
    // Six each: within every socket's own limit, 24 for the seat, 20 allowed.
    for socket in &mut sockets {
        for _ in 0..6 {
            socket.send(json!({"t": "ping"})).await;
        }
    }
    let last = sockets.last_mut().unwrap();
    assert_eq!(last.closed().await, Closed::Code(1008));
    // A spectator's budget is its own.
    let mut watcher = Client::join(server.addr, room, None).await;
    assert_eq!(watcher.act("ping", Value::Null).await["t"], "pong");
}

#[tokio::test]
async fn a_seats_fifth_socket_closes_its_oldest() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    let token = table.black.token.clone();
    let mut newer = Vec::new();
    for _ in 0..4 {
        newer.push(Client::join(server.addr, &table.room, token.as_deref()).await);
    }
    assert_eq!(table.black.closed().await, Closed::Code(4000));
    for socket in &mut newer {
        assert_eq!(socket.act("ping", Value::Null).await["t"], "pong");
    }
    // Black is still connected, and still plays.
    assert_eq!(
        table.white.sync().await["players"]["black"]["connected"],
        true
    );
    newer[0].ok("roll", Value::Null).await;
}

/// Refuses a draw offer from a side that already offered in this turn of its own, with the
/// reason in words, and logs nothing.
async fn second_offer_refused(table: &mut Table, side: &str, addr: std::net::SocketAddr) {
    let logged = record(addr, &table.room).await["events"]
        .as_array()
        .unwrap()
        .len();
    let client = if side == "black" {
        &mut table.black
    } else {
        &mut table.white
    };
    assert!(
        client.sync().await["draw_offers_spent"]
            .as_array()
            .unwrap()
            .contains(&json!(side))
    );
    let refusal = client
        .refused("draw-offer", Value::Null, "bad_request")
        .await;
    let message = refusal["d"]["message"].as_str().unwrap();
    assert!(
        message.contains("once your opponent has moved"),
        "{message}"
    );
    let after = record(addr, &table.room).await["events"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(after, logged, "a refused offer logged something");
}

#[tokio::test]
async fn draw_offers_decline_withdraw_lapse_and_accept_one_per_turn() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    let offered = table.black.ok("draw-offer", Value::Null).await;
    assert_eq!(offered.last().unwrap()["t"], "draw-offered");
    assert_eq!(table.white.sync().await["draw_offer"], "black");
    table.refused_pending().await;

    let declined = table.white.ok("draw-decline", Value::Null).await;
    assert_eq!(
        declined.last().unwrap()["d"],
        json!({"side": "black", "why": "declined", "v": declined.last().unwrap()["d"]["v"]})
    );
    // One offer per turn of one's own: black must wait for white to move.
    second_offer_refused(&mut table, "black", server.addr).await;

    // White offers in black's turn and withdraws: white too has spent its offer.
    table.white.ok("draw-offer", Value::Null).await;
    let withdrawn = table.white.ok("draw-decline", Value::Null).await;
    assert_eq!(withdrawn.last().unwrap()["d"]["why"], "withdrawn");
    assert_eq!(table.black.sync().await["draw_offer"], Value::Null);
    second_offer_refused(&mut table, "white", server.addr).await;

    // Black's turn ends: white may offer again, black may not yet.
    play_turn(&mut table.black, "black").await;
    second_offer_refused(&mut table, "black", server.addr).await;
    table.white.ok("draw-offer", Value::Null).await;
    // White's turn ends and black throws: white's offer lapses; black may offer again.
    play_turn(&mut table.white, "white").await;
    let events = table.black.ok("roll", Value::Null).await;
    let lapsed = events
        .iter()
        .find(|e| e["t"] == "draw-cancelled")
        .expect("the offer lapses");
    assert_eq!(
        (lapsed["d"]["side"].as_str(), lapsed["d"]["why"].as_str()),
        (Some("white"), Some("lapsed"))
    );
    // White offered in its own turn: spent until black has moved (a throw without a move ends
    // black's turn at once).
    // Black's own pass, not white's at the end of its turn (which this read may include too).
    let passed = events
        .iter()
        .any(|e| e["t"] == "passed" && e["d"]["next"] == "white");
    let spent = if passed { json!([]) } else { json!(["white"]) };
    assert_eq!(table.black.sync().await["draw_offers_spent"], spent);

    table.black.ok("draw-offer", Value::Null).await;
    let accepted = table.white.ok("draw-accept", Value::Null).await;
    let over = accepted.last().unwrap();
    assert_eq!(
        (
            over["t"].as_str(),
            over["d"]["winner"].as_str(),
            over["d"]["reason"].as_str()
        ),
        (Some("game-over"), Some("draw"), Some("agreement"))
    );
    let other_view = table.black.wait_for("game-over").await;
    assert_eq!(other_view["d"]["reason"], "agreement");
}

impl Table {
    /// While black's offer is open, neither side may offer and black cannot accept it.
    async fn refused_pending(&mut self) {
        self.black
            .refused("draw-offer", Value::Null, "bad_request")
            .await;
        self.white
            .refused("draw-offer", Value::Null, "bad_request")
            .await;
        self.black
            .refused("draw-accept", Value::Null, "no_draw_offer")
            .await;
    }
}

#[tokio::test]
async fn resign_ends_the_game_and_reveals_the_seed() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    let events = table.white.ok("resign", Value::Null).await;
    let over = events.last().unwrap();
    assert_eq!(
        (over["d"]["winner"].as_str(), over["d"]["reason"].as_str()),
        (Some("black"), Some("resign"))
    );
    let record = record(server.addr, &table.room).await;
    assert_eq!(record["seed"], over["d"]["seed"]);
    let (_, summary) = http(
        server.addr,
        "GET",
        &format!("/api/rooms/{}", table.room),
        None,
    )
    .await;
    assert_eq!(
        (
            summary["status"].as_str(),
            summary["result"]["winner"].as_str()
        ),
        (Some("finished"), Some("black"))
    );
}

#[tokio::test]
async fn an_absent_player_on_their_turn_can_be_claimed_against() {
    let server = TestServer::start_with(|config| {
        config.abandon_after = std::time::Duration::from_millis(600)
    })
    .await;
    let Table {
        room,
        black,
        mut white,
    } = online_table(server.addr).await;

    // Black is to move. While black is here, nothing can be claimed.
    white
        .refused("claim-victory", Value::Null, "cannot_claim")
        .await;
    black.close().await;
    let presence = loop {
        let event = white.wait_for("presence").await;
        if event["d"]["black"]["connected"] == false {
            break event;
        }
    };
    let claim_at = presence["d"]["black"]["claim_at"]
        .as_i64()
        .expect("black is absent on its turn");
    assert_eq!(presence["d"]["white"]["claim_at"], Value::Null);
    white
        .refused("claim-victory", Value::Null, "cannot_claim")
        .await;
    let now = senet::room::now_ms();
    tokio::time::sleep(std::time::Duration::from_millis(
        (claim_at - now).max(0) as u64 + 50,
    ))
    .await;
    let events = white.ok("claim-victory", Value::Null).await;
    let over = events.iter().find(|e| e["t"] == "game-over").unwrap();
    assert_eq!(
        (over["d"]["winner"].as_str(), over["d"]["reason"].as_str()),
        (Some("white"), Some("abandon"))
    );

    // The countdown runs only on the absent side's turn: white leaving while
    // black is to move gives black nothing to claim.
    let mut table = online_table(server.addr).await;
    assert_ne!(table.room, room);
    table.white.close_and_wait(&mut table.black).await;
    let state = table.black.sync().await;
    assert_eq!(
        (
            state["players"]["white"]["connected"].as_bool(),
            state["players"]["white"]["claim_at"].clone()
        ),
        (Some(false), Value::Null)
    );
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    table
        .black
        .refused("claim-victory", Value::Null, "cannot_claim")
        .await;
}

#[tokio::test]
async fn rematch_opens_a_room_with_colours_swapped() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    let mut spectator = Client::join(server.addr, &table.room, None).await;
    table.black.ok("resign", Value::Null).await;
    let offered = table.black.ok("rematch", Value::Null).await;
    assert_eq!(offered.last().unwrap()["t"], "rematch-offered");
    table
        .black
        .refused("rematch", Value::Null, "bad_request")
        .await;
    assert_eq!(table.white.sync().await["rematch_offers"], json!(["black"]));
    spectator
        .refused("rematch", Value::Null, "not_seated")
        .await;

    let events = table.white.ok("rematch", Value::Null).await;
    let new_room = events.last().unwrap()["d"]["room"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(new_room, table.room);
    // Each player is told privately where to sit now; the spectator is not.
    let mut tokens = HashMap::new();
    for client in [&mut table.black, &mut table.white] {
        let seat = client.reply_of_type("seat").await;
        assert_eq!(seat["d"]["room"], new_room.as_str());
        assert_eq!(seat["d"]["url"], format!("/r/{new_room}"));
        tokens.insert(
            seat["d"]["seat"].as_str().unwrap().to_string(),
            seat["d"]["token"].as_str().unwrap().to_string(),
        );
    }
    assert_eq!(tokens["white"], table.black.token.clone().unwrap());
    assert_eq!(tokens["black"], table.white.token.clone().unwrap());
    spectator.wait_for("rematch").await;
    assert!(spectator.replies.iter().all(|r| r["t"] != "seat"));
    table
        .white
        .refused("rematch", Value::Null, "rematch_not_available")
        .await;

    let new_black = Client::join(server.addr, &new_room, Some(&tokens["black"])).await;
    let new_white = Client::join(server.addr, &new_room, Some(&tokens["white"])).await;
    assert_eq!(
        (new_black.seat.as_str(), new_white.seat.as_str()),
        ("black", "white")
    );
    assert_eq!(new_black.state["phase"], "roll");
    assert_ne!(new_black.state["seed_hash"], table.black.state["seed_hash"]);

    // A local room needs one rematch request.
    let (_, mut both) = local_client(server.addr).await;
    both.ok("resign", Value::Null).await;
    let events = both.ok("rematch", Value::Null).await;
    assert_eq!(events.last().unwrap()["t"], "rematch");
    let seat = both.reply_of_type("seat").await;
    assert_eq!(
        (seat["t"].as_str(), seat["d"]["seat"].as_str()),
        (Some("seat"), Some("both"))
    );
}

#[tokio::test]
async fn a_player_reconnects_mid_game_with_the_token() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    assert_eq!(play_random(&mut table, &mut rng, 12).await, None);
    let token = table.black.token.clone().unwrap();
    let before = game_part(&table.white.sync().await);
    table.black.close_and_wait(&mut table.white).await;

    let black = Client::join(server.addr, &table.room, Some(&token)).await;
    assert_eq!(black.seat, "black");
    let mut expected = before.clone();
    expected["v"] = black.state["v"].clone(); // only presence events came since
    assert_eq!(game_part(&black.state), expected);
    assert_eq!(black.state["players"]["black"]["connected"], true);
    table.black = black;
    let winner = play_random(&mut table, &mut rng, 2_000).await;
    assert!(winner.is_some(), "the game finishes after the reconnect");
}

#[tokio::test]
async fn summaries_are_read_from_the_log_without_loading_rooms() {
    let server = TestServer::start().await;
    let table = online_table(server.addr).await;
    let waiting = create_room(server.addr, "online", "white").await;
    let waiting = waiting["room"].as_str().unwrap();
    assert_eq!(server.rooms.live_count(), 1, "only the room being played");

    let (status, summary) = http(server.addr, "GET", &format!("/api/rooms/{waiting}"), None).await;
    assert_eq!((status, &summary["status"]), (200, &json!("waiting")));
    assert_eq!(summary["players"]["white"]["seated"], true);
    assert_eq!(server.rooms.live_count(), 1, "a summary loaded the room");

    // A live room answers itself: it knows who watches.
    let (_, live) = http(
        server.addr,
        "GET",
        &format!("/api/rooms/{}", table.room),
        None,
    )
    .await;
    assert_eq!(
        (&live["status"], &live["spectators"]),
        (&json!("playing"), &json!(0))
    );
}

#[tokio::test]
async fn unstarted_rooms_past_their_ttl_are_deleted_and_games_are_kept() {
    let ttl = std::time::Duration::from_secs(1);
    let server = TestServer::start_with(|config| config.unstarted_room_ttl = ttl).await;
    let waiting = create_room(server.addr, "online", "black").await;
    let room = waiting["room"].as_str().unwrap().to_string();
    let mut creator = Client::join(server.addr, &room, waiting["token"].as_str()).await;
    let playing = online_table(server.addr).await;
    let local = create_room(server.addr, "local", "black").await;

    // The waiting room goes, and its creator's socket with it; games stay.
    assert_eq!(creator.closed().await, Closed::Code(1012));
    let deadline = std::time::Instant::now() + PATIENCE;
    while http(server.addr, "GET", &format!("/api/rooms/{room}"), None)
        .await
        .0
        != 404
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the unstarted room stays"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    tokio::time::sleep(2 * ttl).await;
    for kept in [playing.room.as_str(), local["room"].as_str().unwrap()] {
        let (status, summary) = http(server.addr, "GET", &format!("/api/rooms/{kept}"), None).await;
        assert_eq!(
            (status, &summary["status"]),
            (200, &json!("playing")),
            "{kept}"
        );
    }
}

#[tokio::test]
async fn rooms_leave_memory_when_idle_and_come_back_from_the_log() {
    let server = TestServer::start_with(|config| {
        config.room_idle_after = std::time::Duration::from_millis(200)
    })
    .await;
    let mut table = online_table(server.addr).await;
    table.black.ok("roll", Value::Null).await;
    let before = game_part(&table.black.sync().await);
    assert_eq!(server.rooms.live_count(), 1);
    table.black.close().await;
    table.white.close().await;
    let deadline = std::time::Instant::now() + PATIENCE;
    while server.rooms.live_count() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the idle room stays in memory"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mut spectator = Client::join(server.addr, &table.room, None).await;
    let mut after = game_part(&spectator.sync().await);
    after["v"] = before["v"].clone(); // presence events were logged meanwhile
    assert_eq!(after, before);
}

#[tokio::test]
async fn graceful_shutdown_closes_sockets_with_1012() {
    let server = TestServer::start().await;
    let mut table = online_table(server.addr).await;
    table.black.ok("roll", Value::Null).await;
    server.stop().await;
    assert_eq!(table.black.closed().await, Closed::Code(1012));
    assert_eq!(table.white.closed().await, Closed::Code(1012));
}

#[tokio::test]
async fn a_killed_server_restarts_with_nothing_lost_and_the_record_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("senet.db");
    let server = ChildServer::start(&database, &[]).await;
    let mut table = online_table(server.addr).await;
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    play_random(&mut table, &mut rng, 10).await;
    // Kill it between a throw and its move: the throw must survive. The random play may have
    // stopped there already (its last action a throw with moves to make).
    let state = table.black.sync().await;
    let mut turn = state["turn"].as_str().unwrap().to_string();
    let mut thrown = state["phase"] == "move";
    while !thrown {
        let events = table.mover(&turn).ok("roll", Value::Null).await;
        // Only what followed this throw: the mover's earlier unread events may hold old passes.
        let rolled = events.iter().rposition(|e| e["t"] == "rolled").unwrap();
        match events[rolled..].iter().find(|e| e["t"] == "passed") {
            Some(passed) => turn = passed["d"]["next"].as_str().unwrap().into(),
            None => thrown = true,
        }
    }
    let before = game_part(&table.black.sync().await);
    assert_eq!(before["phase"], "move");
    server.kill().await;
    assert_eq!(table.black.closed().await, Closed::NoCloseFrame);

    let server = ChildServer::start(&database, &[]).await;
    let tokens = (
        table.black.token.clone().unwrap(),
        table.white.token.clone().unwrap(),
    );
    let black = Client::join(server.addr, &table.room, Some(&tokens.0)).await;
    let white = Client::join(server.addr, &table.room, Some(&tokens.1)).await;
    let mut after = game_part(&black.state);
    after["v"] = before["v"].clone(); // presence events were logged since
    assert_eq!(
        after, before,
        "the position, the throw and the turn survive"
    );
    table.black = black;
    table.white = white;
    table
        .mover(&turn)
        .refused("roll", Value::Null, "already_rolled")
        .await;
    let legal = before["legal"][0]["from"].clone();
    table
        .mover(&turn)
        .ok("move", json!({ "from": legal }))
        .await;
    assert!(play_random(&mut table, &mut rng, 2_000).await.is_some());

    // SIGTERM: clients get 1012 and the process exits cleanly.
    let status = server.terminate().await;
    assert!(status.success(), "{status}");
    assert_eq!(table.black.closed().await, Closed::Code(1012));

    // The record verifies; a changed throw or a changed move does not.
    let server = ChildServer::start(&database, &[]).await;
    let record = record(server.addr, &table.room).await;
    let verdict = verify_accepted(&record).await;
    assert!(verdict["throws"].as_u64().unwrap() > 10);

    let mut changed_throw = record.clone();
    let rolled = changed_throw["events"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|e| e["t"] == "rolled")
        .unwrap();
    let first = rolled["d"]["sticks"][0].as_bool().unwrap();
    rolled["d"]["sticks"][0] = json!(!first);
    verify_rejected(&changed_throw).await;

    let mut changed_move = record.clone();
    let events = changed_move["events"].as_array_mut().unwrap();
    let moved = events.iter_mut().find(|e| e["t"] == "moved").unwrap();
    let from = moved["d"]["from"].as_u64().unwrap();
    moved["d"]["from"] = json!(if from == 10 { 8 } else { 10 });
    verify_rejected(&changed_move).await;

    // Three servers' debug logs: the room is named, the secrets never are.
    let log = std::fs::read_to_string(database.with_extension("log")).unwrap();
    assert!(log.contains(&table.room), "logs name the room");
    let seed = record["seed"].as_str().unwrap();
    for secret in [tokens.0.as_str(), tokens.1.as_str(), seed] {
        assert!(!log.contains(secret), "a secret was logged");
    }
}

#[tokio::test]
async fn a_connection_that_falls_behind_gets_a_fresh_state() {
    // With room for one frame, a throw that also cancels a draw offer (two
    // events at once) leaves every other connection behind.
    let server = TestServer::start_with(|config| config.broadcast_capacity = 1).await;
    let mut table = online_table(server.addr).await;
    let mut spectator = Client::join(server.addr, &table.room, None).await;
    table.white.ok("draw-offer", Value::Null).await;
    table.black.ok("roll", Value::Null).await;
    // The actor too: its ack comes after a fresh state, not after lost events.
    let unasked = |c: &Client| {
        c.replies
            .iter()
            .any(|r| r["t"] == "state" && r["d"].get("id").is_none())
    };
    assert!(unasked(&table.black), "{:?}", table.black.frames);
    let last = table.black.sync().await["v"].as_u64().unwrap();
    let fresh = spectator.reply_of_type("state").await;
    assert_eq!(fresh["d"].get("id"), None, "sent unasked");
    assert!(fresh["d"]["v"].as_u64().unwrap() >= last - 1);
    assert_eq!(fresh["d"]["draw_offer"], Value::Null);
    // Nothing the fresh state already holds arrives after it.
    let fresh_v = fresh["d"]["v"].as_u64().unwrap();
    let at = spectator.frames.iter().position(|f| f == &fresh).unwrap();
    spectator.wait_for_v(last).await;
    let later = &spectator.frames[at + 1..];
    assert!(
        later
            .iter()
            .filter(|f| is_event(f))
            .all(|e| e["d"]["v"].as_u64().unwrap() > fresh_v),
        "{later:?}"
    );
    assert_eq!(
        game_part(&spectator.sync().await),
        game_part(&table.black.sync().await)
    );
}

#[tokio::test]
async fn a_peer_that_stops_answering_pings_is_dropped_and_counted_absent() {
    let server = TestServer::start_with(|config| {
        config.ping_interval = std::time::Duration::from_millis(250);
    })
    .await;
    // White's client is never read again, so it never answers a ping;
    // black keeps reading (and so answering) and must stay connected.
    let Table {
        room,
        mut black,
        mut white,
    } = online_table(server.addr).await;
    loop {
        let presence = black.wait_for("presence").await;
        if presence["d"]["white"]["connected"] == false {
            assert_eq!(presence["d"]["black"]["connected"], true);
            break;
        }
    }
    // Black, reading all along, outlives many heartbeats.
    let until = std::time::Instant::now() + std::time::Duration::from_millis(1_000);
    while std::time::Instant::now() < until {
        assert_eq!(black.sync().await["players"]["black"]["connected"], true);
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        white.closed().await,
        Closed::NoCloseFrame,
        "white was dropped"
    );

    // A socket that never says hello is closed, though it answers pings.
    let mut mute = Client::connect(server.addr, &room).await;
    assert_eq!(mute.closed().await, Closed::Code(1008));
}

#[tokio::test]
async fn racing_joiners_get_one_seat() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "online", "black").await;
    let room = created["room"].as_str().unwrap();
    let path = format!("/api/rooms/{room}/join");
    let joins = (0..6).map(|_| http(server.addr, "POST", &path, Some(json!({}))));
    let mut statuses: Vec<u16> = futures_util::future::join_all(joins)
        .await
        .into_iter()
        .map(|(status, _)| status)
        .collect();
    statuses.sort();
    assert_eq!(statuses, [200, 409, 409, 409, 409, 409]);
    let record = record(server.addr, room).await;
    let started = record["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["t"] == "started")
        .count();
    assert_eq!(started, 1);
}

/// Two servers on one database: the second holds a stale copy of the room,
/// loses the race for the next version, reads what it missed from the log,
/// passes it on in order and judges its action again.
#[tokio::test]
async fn a_stale_room_catches_up_after_losing_a_version_race() {
    let first = TestServer::start().await;
    let second = TestServer::beside(&first).await;
    let mut table = online_table(first.addr).await;
    let mut watcher = Client::join(second.addr, &table.room, None).await;
    let loaded_at = watcher.last_v();
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    play_random(&mut table, &mut rng, 6).await;
    let truth = game_part(&table.black.sync().await);
    assert!(truth["v"].as_u64().unwrap() > loaded_at + 3);
    assert_eq!(
        watcher.sync().await["v"].as_u64(),
        Some(loaded_at),
        "the second server is stale"
    );

    // White also connects through the second server: its presence event
    // clashes with versions the first server wrote.
    let white_token = table.white.token.clone().unwrap();
    let white_there = Client::join(second.addr, &table.room, Some(&white_token)).await;
    let mut expected = truth.clone();
    expected["v"] = white_there.state["v"].clone();
    assert_eq!(
        game_part(&white_there.state),
        expected,
        "caught up before judging"
    );
    watcher
        .wait_for_v(white_there.state["v"].as_u64().unwrap())
        .await;
    let versions: Vec<u64> = watcher
        .events
        .iter()
        .map(|e| e["d"]["v"].as_u64().unwrap())
        .collect();
    let all: Vec<u64> = (loaded_at + 1..=white_there.state["v"].as_u64().unwrap()).collect();
    assert_eq!(
        versions, all,
        "the watcher got every missed event, in order"
    );
    let record = record(first.addr, &table.room).await;
    let logged: Vec<u64> = record["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["v"].as_u64().unwrap())
        .collect();
    assert_eq!(
        logged,
        (1..=logged.len() as u64).collect::<Vec<_>>(),
        "no fork, no gap"
    );
}

//! Correspondence games (issue 46) over real sockets: the days-per-move control is offered and
//! checked, an idle game is not held in memory (nor loaded by a restart), its clock survives a
//! restart as the log has it (no time given back), and a game whose days ran out is timed out
//! by the server with nobody connected, found through the store; on PostgreSQL the same over
//! killed instances.

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::Duration;

use common::{ChildServer, Client, TestServer, http, play_turn, record, verify_accepted};
use serde_json::{Value, json};

const DAY_MS: i64 = 86_400_000;

/// An online correspondence room of `days` a move, black created, white joined: the tokens.
async fn correspondence_game(addr: SocketAddr, days: u8) -> (String, String, String) {
    let body = json!({"mode": "online", "side": "black", "clock": {"days": days}});
    let (status, created) = http(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let joined = common::join_room(addr, &room).await;
    let token = |v: &Value| v["token"].as_str().unwrap().to_string();
    (room, token(&created), token(&joined))
}

/// Rooms idle out at once: what stays in memory is what must.
async fn server() -> TestServer {
    TestServer::start_with(|config| config.room_idle_after = Duration::from_millis(100)).await
}

async fn until_no_room_in_memory(server: &TestServer) {
    for _ in 0..100 {
        if server.rooms.live_count() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} rooms still in memory", server.rooms.live_count());
}

#[tokio::test]
async fn only_the_offered_days_make_a_correspondence_room_and_only_online() {
    let server = server().await;
    for days in [1, 2, 3, 5, 7, 14] {
        let body = json!({"mode": "online", "side": "black", "clock": {"days": days}});
        let (status, created) = http(server.addr, "POST", "/api/rooms", Some(body)).await;
        assert_eq!(status, 201, "{days} days: {created}");
    }
    let refused = [
        json!({"mode": "online", "side": "black", "clock": {"days": 4}}),
        json!({"mode": "online", "side": "black", "clock": {"days": 3, "increment": 5}}),
        json!({"mode": "local", "side": "black", "clock": {"days": 3}}),
        json!({"mode": "ai", "side": "black", "level": "easy", "clock": {"days": 3}}),
    ];
    for body in refused {
        let (status, answer) = http(server.addr, "POST", "/api/rooms", Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"], "bad_request", "{answer}");
    }
}

/// Quick pairing matches correspondence controls by their days, never with a live one, and
/// the room it starts is a correspondence game; a seek's room has its control with its days.
#[tokio::test]
async fn quick_pairing_and_seeks_carry_a_correspondence_control() {
    let server = TestServer::start_with(|config| config.max_seeks_per_address = 0).await;
    let pair = |visitor: &'static str, clock: Value| {
        let body = json!({"clock": clock, "visitor": visitor});
        async move {
            let (status, paired) = http(server.addr, "POST", "/api/pairing", Some(body)).await;
            assert_eq!(status, 200, "{paired}");
            paired
        }
    };
    assert_eq!(pair("ann", json!({"days": 3})).await["paired"], false);
    assert_eq!(pair("bob", json!({"days": 7})).await["paired"], false);
    let live = json!({"initial": 259_200, "increment": 1});
    let (status, refused) = http(
        server.addr,
        "POST",
        "/api/pairing",
        Some(json!({"clock": live, "visitor": "cy"})),
    )
    .await;
    assert_eq!(status, 400, "a live clock of days is refused: {refused}");
    let paired = pair("dee", json!({"days": 3})).await;
    assert_eq!(paired["paired"], true, "{paired}");
    let room = paired["room"]
        .as_str()
        .unwrap_or_else(|| panic!("{paired}"));
    let watcher = Client::join(server.addr, room, None).await;
    assert_eq!(watcher.state["clock"]["control"]["days"], 3);
    assert_eq!(watcher.state["phase"], "roll");

    let body = json!({"side": "black", "clock": {"days": 14}, "visitor": "eve"});
    let (status, posted) = http(server.addr, "POST", "/api/seeks", Some(body)).await;
    assert_eq!(status, 201, "{posted}");
    let seek_room = posted["room"]
        .as_str()
        .unwrap_or_else(|| panic!("{posted}"));
    let looking = Client::join(server.addr, seek_room, None).await;
    assert_eq!(
        looking.state["clock"]["control"],
        json!({"initial": 14 * 86_400, "increment": 0, "days": 14})
    );
}

/// The clock a player sees is the log's: a turn's end sets the mover's back to the whole
/// allowance; an idle game leaves memory with its clock running, a restart does not load it
/// and gives no time back (no `resumed`), and the deadline is where it was.
#[tokio::test]
async fn a_correspondence_clock_runs_on_over_idleness_and_a_restart() {
    let server = server().await;
    let (room, black, white) = correspondence_game(server.addr, 3).await;
    let mut black_client = Client::join(server.addr, &room, Some(&black)).await;
    assert_eq!(
        black_client.state["clock"]["control"],
        json!({"initial": 259_200, "increment": 0, "days": 3})
    );
    let events = play_turn(&mut black_client, "black").await;
    let ended = events
        .iter()
        .rev()
        .find(|e| e["t"] == "moved" || e["t"] == "passed")
        .unwrap_or_else(|| panic!("{events:?} {}", black_client.state));
    assert_eq!(ended["d"]["clocks"]["black"], 3 * DAY_MS, "{ended}");
    let white_left = ended["d"]["clocks"]["white"].as_i64().unwrap();
    let logged = record(server.addr, &room).await;
    let ended_at = logged["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["v"] == ended["d"]["v"])
        .unwrap_or_else(|| panic!("{ended} not in {logged}"))["at"]
        .as_i64()
        .unwrap();
    let white_deadline = ended_at + white_left;
    black_client.close().await;
    // Nobody there: the room leaves memory though its clock runs.
    until_no_room_in_memory(&server).await;

    let server = server
        .restart_with(|config| config.room_idle_after = Duration::from_millis(100))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        server.rooms.live_count(),
        0,
        "a restart loads no correspondence game"
    );
    let looking = senet::room::now_ms();
    let watcher = Client::join(server.addr, &room, None).await;
    let clock = &watcher.state["clock"];
    assert_eq!(clock["running"], "white");
    let shown = clock["remaining"]["white"].as_i64().unwrap();
    let deadline_shown = looking + shown;
    assert!(
        (white_deadline - deadline_shown).abs() < 2_000,
        "white's deadline moved: {white_deadline} then, {deadline_shown} now"
    );
    let record = record(server.addr, &room).await;
    let kinds: Vec<&str> = record["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["t"].as_str().unwrap())
        .collect();
    assert!(!kinds.contains(&"resumed"), "{kinds:?}");
    // `senet verify` re-judges the clocks of the whole game, once it is over.
    let mut white = Client::join(server.addr, &room, Some(&white)).await;
    play_turn(&mut white, "white").await;
    white.ok("resign", Value::Null).await;
    verify_accepted(&common::record(server.addr, &room).await).await;
}

/// Moves the room's logged times and its stored deadline `by` ms into the past, as if its
/// events had been played then: the clock of the test, injected through the log.
async fn age_room(server: &TestServer, room: &str, by: i64) {
    let url = format!("sqlite://{}", server.dir.path().join("senet.db").display());
    let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    for statement in [
        "UPDATE events SET at = at - $1 WHERE room = $2",
        "UPDATE correspondence_turns SET due_at = due_at - $1 WHERE room = $2",
    ] {
        let done = sqlx::query(statement)
            .bind(by)
            .bind(room)
            .execute(&mut db)
            .await
            .unwrap();
        assert!(done.rows_affected() > 0, "{statement}");
    }
}

/// A game whose side to move let its days run out ends by timeout, the server finding it in
/// the store with nobody connected and the room not in memory; the winner is the other side.
#[tokio::test]
async fn a_correspondence_game_whose_days_ran_out_times_out_with_nobody_there() {
    let server = server().await;
    let (room, _, _) = correspondence_game(server.addr, 1).await;
    until_no_room_in_memory(&server).await;
    let server = server
        .restart_with(|config| config.room_idle_after = Duration::from_millis(100))
        .await;
    // A day and a second ago, black's turn began; nobody has been there since.
    age_room(&server, &room, DAY_MS + 1_000).await;
    let server = server
        .restart_with(|config| {
            config.room_idle_after = Duration::from_millis(100);
            config.due_turn_check = Duration::from_millis(100);
        })
        .await;
    let mut over = None;
    for _ in 0..100 {
        let record = record(server.addr, &room).await;
        over = record["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["t"] == "game-over")
            .cloned();
        if over.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let over = over.expect("no timeout logged");
    assert_eq!(
        (&over["d"]["winner"], &over["d"]["reason"]),
        (&json!("white"), &json!("timeout")),
        "{over}"
    );
    // The game is over: no turn is due any more, and the room idles out again.
    until_no_room_in_memory(&server).await;
    let due = server
        .rooms
        .store()
        .log
        .due_turns(senet::room::now_ms() + 30 * DAY_MS, 10)
        .await
        .unwrap();
    assert!(due.is_empty(), "{due:?}");
}

/// The side to move's deadline in a room's record: its last clock-carrying event's time plus
/// that side's time then.
fn deadline_of(record: &Value, side: &str) -> i64 {
    let last = record["events"]
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["d"]["clocks"].is_object())
        .unwrap_or_else(|| panic!("no clocks in {record}"));
    last["at"].as_i64().unwrap() + last["d"]["clocks"][side].as_i64().unwrap()
}

/// On PostgreSQL a correspondence game outlives the instances that served it: killed mid-game,
/// the next instance shows the same deadline (no `resumed`, no time given back), a turn there
/// sets the mover's clock back to the whole day, and once the side to move's day has run out a
/// third instance, started after the second is killed, times the game out by itself.
async fn a_correspondence_game_outlives_killed_instances_on_postgres(url: String) {
    let logs = tempfile::tempdir().unwrap();
    let one = ChildServer::start_url(&url, &logs.path().join("one.log"), &[]).await;
    let (room, black, white) = correspondence_game(one.addr, 1).await;
    let mut black = Client::join(one.addr, &room, Some(&black)).await;
    play_turn(&mut black, "black").await;
    let white_deadline = deadline_of(&record(one.addr, &room).await, "white");
    one.kill().await;

    let two = ChildServer::start_url(&url, &logs.path().join("two.log"), &[]).await;
    let looking = senet::room::now_ms();
    let mut white = Client::join(two.addr, &room, Some(&white)).await;
    let shown = white.state["clock"]["remaining"]["white"].as_i64().unwrap();
    assert_eq!(white.state["clock"]["running"], "white");
    assert!(
        (looking + shown - white_deadline).abs() < 2_000,
        "white's deadline moved from {white_deadline} to {}",
        looking + shown
    );
    play_turn(&mut white, "white").await;
    let logged = record(two.addr, &room).await;
    assert!(
        !logged["events"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["t"] == "resumed"),
        "{logged}"
    );
    let black_deadline = deadline_of(&logged, "black");
    let last_at = logged["events"].as_array().unwrap().last().unwrap()["at"]
        .as_i64()
        .unwrap();
    assert!(black_deadline - last_at <= DAY_MS && black_deadline - last_at > DAY_MS - 5_000);
    two.kill().await;

    // A day and a second pass (the log and the stored deadline aged by as much).
    let mut db = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let due: (String, i64) =
        sqlx::query_as("SELECT side, due_at FROM correspondence_turns WHERE room = $1")
            .bind(&room)
            .fetch_one(&mut db)
            .await
            .unwrap();
    assert_eq!(due, ("black".to_string(), black_deadline));
    for statement in [
        "UPDATE events SET at = at - $1 WHERE room = $2",
        "UPDATE correspondence_turns SET due_at = due_at - $1 WHERE room = $2",
    ] {
        sqlx::query(statement)
            .bind(DAY_MS + 1_000)
            .bind(&room)
            .execute(&mut db)
            .await
            .unwrap();
    }
    let three = ChildServer::start_url(
        &url,
        &logs.path().join("three.log"),
        &["--due-turn-check", "1"],
    )
    .await;
    for _ in 0..100 {
        let logged = record(three.addr, &room).await;
        if let Some(over) = logged["events"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["t"] == "game-over")
        {
            assert_eq!(
                (&over["d"]["winner"], &over["d"]["reason"]),
                (&json!("white"), &json!("timeout")),
                "{over}"
            );
            let left: Option<(i64,)> =
                sqlx::query_as("SELECT due_at FROM correspondence_turns WHERE room = $1")
                    .bind(&room)
                    .fetch_optional(&mut db)
                    .await
                    .unwrap();
            assert_eq!(left, None, "an ended game has no turn");
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no timeout on the third instance");
}

postgres_support::postgres_tests!(a_correspondence_game_outlives_killed_instances_on_postgres);

//! Tournaments that run by themselves (issue 45), over real sockets: a real server directs them
//! (`tournament::director`), identified players join over HTTP, and bot clients play every
//! game they are paired into over the room's WebSocket with the seat token the tournament's
//! page hands them. Then `senet tournament verify` recomputes the log from the store.
//!
//! In every game the higher-numbered player resigns after black's first turn (unless their
//! opponent is the absent one, who never comes and loses on time), so results are decided by
//! the players, and the lowest number wins every game they play.

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Browser, Client, TestServer};
use senet::protocol::TimeControl;
use senet::store::{StoredEvent, TournamentRow};
use senet::tournament::{Event, Format, Settings, Tournament};
use serde_json::{Value, json};
use sqlx::Connection;

/// Seconds on each clock: short, so that an absent player's game ends soon, and long enough that
/// a present bot does not run out on a loaded machine.
const CLOCK_SECONDS: u32 = 6;

fn now_ms() -> i64 {
    senet::room::now_ms()
}

async fn start() -> TestServer {
    TestServer::start_with(|config| config.min_clock_initial = 1).await
}

/// The server's SQLite file.
fn url(server: &TestServer) -> String {
    format!("sqlite://{}", server.dir.path().join("senet.db").display())
}

/// A browser with a new player's cookie.
async fn identified(addr: SocketAddr) -> Browser {
    let mut browser = Browser::new(addr);
    let answer = browser.call("POST", "/api/me", None).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    browser
}

/// `n` identified players, each joined to tournament `id`.
async fn joined(addr: SocketAddr, id: &str, n: usize) -> Vec<Browser> {
    let mut players = Vec::new();
    for _ in 0..n {
        let mut browser = identified(addr).await;
        let answer = browser
            .call("POST", &format!("/api/tournaments/{id}/join"), None)
            .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        players.push(browser);
    }
    players
}

fn swiss(rounds: u32, starts_in_ms: i64, seconds: u32) -> Value {
    json!({
        "name": "Bots Swiss", "format": "swiss", "rounds": rounds,
        "clock": {"initial": seconds, "increment": 0},
        "starts_at": now_ms() + starts_in_ms, "rated": true,
    })
}

async fn create(creator: &mut Browser, body: Value) -> String {
    let answer = creator.call("POST", "/api/tournaments", Some(body)).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.body["id"].as_str().unwrap().to_owned()
}

/// What a bot does in its games, and when it stops.
#[derive(Clone, Copy)]
struct Bot {
    /// The player never plays (their games end on time).
    absent_opponent: Option<u32>,
    /// Withdraw after this many games.
    withdraw_after: Option<usize>,
    /// Pause after this many games, and come back after `paused_for`.
    pause_after: Option<usize>,
    paused_for: Duration,
    /// Stop after this many games (the tournament going on).
    stop_after: Option<usize>,
}

const PLAIN: Bot = Bot {
    absent_opponent: None,
    withdraw_after: None,
    pause_after: None,
    paused_for: Duration::ZERO,
    stop_after: None,
};

/// Plays every game `browser`'s player is paired into until the tournament is over.
async fn play_all(mut browser: Browser, id: String, bot: Bot) -> Vec<String> {
    play_games(&mut browser, &id, bot).await
}

/// Plays the games `browser`'s player is paired into until the tournament is over (or the bot
/// stops); answers the rooms played.
async fn play_games(browser: &mut Browser, id: &str, bot: Bot) -> Vec<String> {
    let path = format!("/api/tournaments/{id}");
    let mut played: Vec<String> = Vec::new();
    loop {
        let shown = browser.call("GET", &path, None).await.body;
        if matches!(shown["status"].as_str(), Some("finished" | "cancelled")) {
            return played;
        }
        let you = &shown["you"];
        let game = &you["game"];
        let fresh = game["room"]
            .as_str()
            .is_some_and(|room| !played.iter().any(|p| p == room));
        if fresh && game["token"].is_string() {
            let room = game["room"].as_str().unwrap().to_owned();
            play(browser.addr, &shown, you, bot).await;
            played.push(room);
            if bot.stop_after == Some(played.len()) {
                return played;
            }
            if bot.withdraw_after == Some(played.len()) {
                let answer = browser
                    .call("POST", &format!("{path}/withdraw"), None)
                    .await;
                assert_eq!(answer.status, 200, "{}", answer.body);
                return played;
            }
            if bot.pause_after == Some(played.len()) {
                let answer = browser.call("POST", &format!("{path}/pause"), None).await;
                assert_eq!(answer.status, 200, "{}", answer.body);
                tokio::time::sleep(bot.paused_for).await;
                let answer = browser.call("POST", &format!("{path}/resume"), None).await;
                assert_eq!(answer.status, 200, "{}", answer.body);
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One game: black plays its first turn, then the loser (the higher number, unless the other
/// is absent) resigns; the winner waits for the end.
async fn play(addr: SocketAddr, shown: &Value, you: &Value, bot: Bot) {
    let game = &you["game"];
    let (room, seat) = (
        game["room"].as_str().unwrap(),
        game["seat"].as_str().unwrap(),
    );
    let me = you["player"].as_u64().unwrap() as u32;
    let board = shown["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["room"] == room)
        .expect("my game is listed")
        .clone();
    let other = if seat == "black" { "white" } else { "black" };
    let opponent = board[other]["player"].as_u64().unwrap() as u32;
    let loser = me > opponent && bot.absent_opponent != Some(opponent);
    let mut client = Client::join(addr, room, game["token"].as_str()).await;
    assert_eq!(client.seat, seat);
    if seat == "black" {
        first_turn(&mut client).await;
    } else {
        while client.sync().await["turn"] == "black" && client.state["result"].is_null() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    if loser {
        // Refused only if the clock ended the game first.
        let reply = client.act("resign", Value::Null).await;
        assert!(
            reply["t"] == "ack" || reply["d"]["code"] == "game_over",
            "{reply}"
        );
    }
    while client.sync().await["result"].is_null() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `senet tournament verify` on the server's database: exit code and verdict.
fn verify(url: &str, id: &str) -> (Option<i32>, Value) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["tournament", "verify", "--database-url", url, "--id", id])
        .output()
        .unwrap();
    let verdict = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code(), verdict)
}

async fn log_of(url: &str, id: &str) -> Vec<Event> {
    let store = senet::store::open(url).await.unwrap();
    let stored = store.tournaments.tournament_events(id, 0).await.unwrap();
    stored
        .iter()
        .map(|s| Event::from_stored(&s.kind, &s.data).unwrap())
        .collect()
}

/// Waits until the tournament's status is `status` (or the time is up).
async fn until_status(browser: &mut Browser, id: &str, status: &str, within: Duration) -> Value {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let shown = browser
            .call("GET", &format!("/api/tournaments/{id}"), None)
            .await
            .body;
        if shown["status"] == status {
            return shown;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still {} after {within:?}: {shown}",
            shown["status"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The rounds paired, each with its boards' players and its bye.
fn rounds(log: &[Event]) -> Vec<(Vec<[u32; 2]>, Option<u32>)> {
    log.iter()
        .filter_map(|event| match event {
            Event::Paired { boards, bye, .. } => {
                Some((boards.iter().map(|b| [b.black, b.white]).collect(), *bye))
            }
            _ => None,
        })
        .collect()
}

/// A Swiss of 9 over 3 rounds played to the end by bots: player 1 never comes (loses both
/// games on time and is withdrawn before round 3), player 2 withdraws after their round-1 game
/// (before round 2's pairing, or just after it when their game was round 1's last); byes in
/// rounds 1 and 3 (9 and 7 players). `senet tournament verify` passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_swiss_of_nine_runs_by_itself_to_the_end_and_verifies() {
    let server = start().await;
    let url = url(&server);
    swiss_of_nine(server, url).await;
}

/// The same on PostgreSQL.
async fn a_swiss_of_nine_on_postgres(url: String) {
    let database = url.clone();
    let server = TestServer::start_with(move |config| {
        config.database_url = database;
        config.min_clock_initial = 1;
    })
    .await;
    swiss_of_nine(server, url).await;
}

postgres_support::postgres_tests!(
    a_swiss_of_nine_on_postgres,
    another_instance_takes_over_a_swiss_whose_director_was_killed
);

async fn swiss_of_nine(server: TestServer, url: String) {
    let mut creator = identified(server.addr).await;
    let id = create(&mut creator, swiss(3, 4_000, CLOCK_SECONDS)).await;
    let mut players = joined(server.addr, &id, 9).await;
    let late = creator
        .call("GET", &format!("/api/tournaments/{id}"), None)
        .await;
    assert_eq!(late.body["status"], "upcoming");
    assert_eq!(late.body["players"], 9);

    players.remove(0); // player 1: absent
    let mut bots = Vec::new();
    for (index, browser) in players.into_iter().enumerate() {
        let number = index as u32 + 2;
        let bot = Bot {
            absent_opponent: Some(1),
            withdraw_after: (number == 2).then_some(1),
            ..PLAIN
        };
        bots.push(tokio::spawn(play_all(browser, id.clone(), bot)));
    }
    let end = until_status(&mut creator, &id, "finished", Duration::from_secs(60)).await;
    for bot in bots {
        bot.await.unwrap();
    }

    let log = log_of(&url, &id).await;
    let paired = rounds(&log);
    assert_eq!(paired.len(), 3, "{log:?}");
    assert_eq!(paired[0].0.len(), 4);
    assert_eq!(paired[0].1, Some(9), "the lowest-ranked gets round 1's bye");
    assert_eq!(paired[1].0.len(), 4);
    assert_eq!(
        paired[2].0.len(),
        3,
        "7 players after 1's and 2's withdrawals"
    );
    assert!(paired[2].1.is_some());
    let position = |wanted: &Event| log.iter().position(|e| e == wanted).unwrap();
    let round = |n: u32| {
        log.iter()
            .position(|e| matches!(e, Event::Paired { round, .. } if *round == n))
            .unwrap()
    };
    let two_out = position(&Event::Withdrawn { player: 2 });
    let one_out = position(&Event::Withdrawn { player: 1 });
    // Player 2 withdraws as their round-1 game ends. When that game is the round's last, the
    // director may pair round 2 first (it pairs as the last result comes): a withdrawal counts
    // from the next pairing after it, so round 2 then still has 9 players and a bye.
    assert!(round(1) < two_out && two_out < round(3), "{log:?}");
    let in_round_2 = paired[1].0.iter().flatten().any(|&p| p == 2);
    assert_eq!(in_round_2, two_out > round(2), "{log:?}");
    assert_eq!(
        paired[1].1.is_some(),
        in_round_2,
        "8 players, or 9 with 2 still in"
    );
    assert!(!paired[2].0.iter().flatten().any(|&p| p == 2), "{log:?}");
    assert!(round(2) < one_out && one_out < round(3), "{log:?}");
    assert_eq!(log.last(), Some(&Event::Finished));
    let results = log
        .iter()
        .filter(|e| matches!(e, Event::Result { .. }))
        .count();
    assert_eq!(results, 11);

    // Player 1 lost both games on time; the standings are the verified ones.
    let standings = end["standings"].as_array().unwrap();
    let one = standings.iter().find(|s| s["player"] == 1).unwrap();
    assert_eq!(
        (one["score"].as_u64(), one["games"].as_u64()),
        (Some(0), Some(2))
    );
    assert_eq!(one["withdrawn"], true);
    let (code, verdict) = verify(&url, &id);
    assert_eq!(code, Some(0), "{verdict}");
    assert_eq!(verdict["consistent"], true);
    assert_eq!(verdict["standings"][0]["player"], standings[0]["player"]);
    server.stop().await;
}

/// An Arena created 30 s before its 10 minutes end (written to the store directly: the API
/// schedules from now; 30 s leave room for joining on a loaded machine): 4 bots play as they come free; player 1 wins every game, so from
/// their third win on each scores 4 (on fire); player 3 pauses after their first game and is
/// not paired until they come back. It ends by itself and verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_arena_pairs_as_players_come_free_with_a_streak_and_a_pause() {
    let server = start().await;
    let mut creator = identified(server.addr).await;
    let creator_id = creator.call("GET", "/api/me", None).await.body["id"].clone();
    let id = "a".repeat(32);
    let settings = Settings {
        name: "Bots Arena".into(),
        format: Format::Arena { minutes: 10 },
        clock: TimeControl::fischer(CLOCK_SECONDS, 0),
        starts_at: now_ms() - 570_000,
        rated: false,
        creator: creator_id.as_str().unwrap().to_owned(),
        min_rating: None,
        max_rating: None,
    };
    let created = Event::Created(settings.clone());
    let mut fold = Tournament::default();
    fold.apply(&created).unwrap();
    let (kind, data) = created.to_stored();
    let store = senet::store::open(&url(&server)).await.unwrap();
    let row = TournamentRow {
        id: id.clone(),
        starts_at: settings.starts_at,
        summary: fold.summary().to_string(),
    };
    let first = StoredEvent {
        v: 1,
        at: now_ms(),
        kind,
        data,
    };
    store
        .tournaments
        .create_tournament(&row, &[first])
        .await
        .unwrap();
    let players = joined(server.addr, &id, 4).await;

    let mut bots = Vec::new();
    for (index, browser) in players.into_iter().enumerate() {
        let bot = Bot {
            pause_after: (index == 2).then_some(1),
            paused_for: Duration::from_millis(1500),
            ..PLAIN
        };
        bots.push(tokio::spawn(play_all(browser, id.clone(), bot)));
    }
    let end = until_status(&mut creator, &id, "finished", Duration::from_secs(90)).await;
    for bot in bots {
        bot.await.unwrap();
    }

    let log = log_of(&url(&server), &id).await;
    let games_of_one: u64 = end["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["player"] == 1)
        .map(|s| s["games"].as_u64().unwrap())
        .unwrap();
    assert!(games_of_one >= 3, "player 1 played {games_of_one}: {log:?}");
    let one = &end["standings"][0];
    assert_eq!(one["player"], 1, "{end}");
    assert_eq!(one["wins"], one["games"]);
    // 2 + 2, then 4 a win on fire.
    let expected = 4 + 4 * (one["games"].as_u64().unwrap() - 2);
    assert_eq!(one["score"].as_u64(), Some(expected), "{end}");
    assert_eq!(one["on_fire"], true);

    // Between its pause and its return player 3 is in no pairing.
    let paused = log
        .iter()
        .position(|e| *e == Event::Paused { player: 3 })
        .expect("player 3 paused");
    let back = log
        .iter()
        .position(|e| *e == Event::Resumed { player: 3 })
        .expect("player 3 came back");
    for event in &log[paused..back] {
        if let Event::Paired { boards, .. } = event {
            assert!(
                boards.iter().all(|b| b.black != 3 && b.white != 3),
                "{log:?}"
            );
        }
    }
    let after_back = log[back..].iter().any(|e| {
        matches!(e, Event::Paired { boards, .. } if boards.iter().any(|b| b.black == 3 || b.white == 3))
    });
    assert!(
        after_back,
        "player 3 is paired again after coming back: {log:?}"
    );
    let (code, verdict) = verify(&url(&server), &id);
    assert_eq!(code, Some(0), "{verdict}");
    server.stop().await;
}

/// A Swiss of 4 over 3 rounds on SQLite, the server restarted while round 2's games are being
/// played: the new server's director takes the tournament up from its log, the games' rooms and
/// seat tokens are the same, and the tournament ends with 3 rounds paired once each and
/// verifies.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_swiss_carries_on_across_a_restart() {
    let server = start().await;
    let mut creator = identified(server.addr).await;
    let id = create(&mut creator, swiss(3, 3_000, 20)).await;
    let players = joined(server.addr, &id, 4).await;

    let mut players = round_one(players, &id).await;
    // Round 2 paired and its rooms made: each player's seat, before the restart.
    let seats_before = seats(&mut players, &id, 2).await;
    let server = server
        .restart_with(|config| config.min_clock_initial = 1)
        .await;
    for browser in &mut players {
        browser.addr = server.addr;
    }
    creator.addr = server.addr;
    let seats_after = seats(&mut players, &id, 2).await;
    assert_eq!(seats_before, seats_after, "the same rooms and tokens");

    play_the_rest(players, &mut creator, &id, &url(&server)).await;
    server.stop().await;
}

/// Each player's game (room, seat, token) once round `round` is paired and seated.
async fn seats(players: &mut [Browser], id: &str, round: u64) -> Vec<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let mut seats = Vec::new();
        for browser in players.iter_mut() {
            let shown = browser
                .call("GET", &format!("/api/tournaments/{id}"), None)
                .await
                .body;
            let game = shown["you"]["game"].clone();
            if shown["round"] == round && game["token"].is_string() {
                seats.push(game);
            }
        }
        if seats.len() == players.len() {
            return seats;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "round {round} not seated"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Two instances on one PostgreSQL; the first directs a Swiss of 4 over 3 rounds (it holds the
/// lease); SIGKILLed while round 2's games are being played, the second takes the tournament
/// over within 5 s, and it ends with every round paired once, every game's result, and verifies.
async fn another_instance_takes_over_a_swiss_whose_director_was_killed(url: String) {
    let logs = tempfile::tempdir().unwrap();
    let first = common::ChildServer::start_url(&url, &logs.path().join("one.log"), &[]).await;
    let mut creator = identified(first.addr).await;
    let id = create(&mut creator, swiss(3, 8_000, 30)).await;
    let mut database = sqlx::PgConnection::connect(&url).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let first_holder = loop {
        if let Some(held) = lease_holder(&mut database, &id).await {
            break held;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "nobody took the lease"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let second = common::ChildServer::start_url(&url, &logs.path().join("two.log"), &[]).await;
    creator.addr = second.addr;
    let mut players = round_one(joined(second.addr, &id, 4).await, &id).await;
    seats(&mut players, &id, 2).await;
    assert_eq!(
        lease_holder(&mut database, &id).await,
        Some(first_holder.clone())
    );
    first.kill().await;
    let killed = tokio::time::Instant::now();
    while lease_holder(&mut database, &id).await.as_ref() == Some(&first_holder) {
        assert!(
            killed.elapsed() < Duration::from_secs(5),
            "no takeover within 5 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let took_over = killed.elapsed();
    play_the_rest(players, &mut creator, &id, &url).await;
    println!("taken over {took_over:?} after the SIGKILL");
    second.kill().await;
}

/// Who holds the tournament's lease, on PostgreSQL.
async fn lease_holder(database: &mut sqlx::PgConnection, id: &str) -> Option<String> {
    sqlx::query_scalar::<_, String>("SELECT holder FROM tournament_leases WHERE tournament = $1")
        .bind(id)
        .fetch_optional(database)
        .await
        .unwrap()
}

/// Round 1, played by bots at once that stop after one game each; answers their browsers.
async fn round_one(players: Vec<Browser>, id: &str) -> Vec<Browser> {
    let mut bots = Vec::new();
    for mut browser in players {
        let id = id.to_owned();
        let bot = Bot {
            stop_after: Some(1),
            ..PLAIN
        };
        bots.push(tokio::spawn(async move {
            play_games(&mut browser, &id, bot).await;
            browser
        }));
    }
    let mut players = Vec::new();
    for bot in bots {
        players.push(bot.await.unwrap());
    }
    players
}

/// A Swiss of 4 over 3 rounds played to its end by bots: every round paired once, all 6 games'
/// results logged (none lost), and `senet tournament verify` passes.
async fn play_the_rest(players: Vec<Browser>, creator: &mut Browser, id: &str, url: &str) {
    let bots: Vec<_> = players
        .into_iter()
        .map(|browser| tokio::spawn(play_all(browser, id.to_owned(), PLAIN)))
        .collect();
    until_status(creator, id, "finished", Duration::from_secs(60)).await;
    for bot in bots {
        bot.await.unwrap();
    }
    let log = log_of(url, id).await;
    let numbers: Vec<u32> = log
        .iter()
        .filter_map(|e| match e {
            Event::Paired { round, .. } => Some(*round),
            _ => None,
        })
        .collect();
    assert_eq!(numbers, [1, 2, 3], "{log:?}");
    let results = log
        .iter()
        .filter(|e| matches!(e, Event::Result { .. }))
        .count();
    assert_eq!(results, 6, "no game lost: {log:?}");
    let (code, verdict) = verify(url, id);
    assert_eq!(code, Some(0), "{verdict}");
}

/// Black's first turn (throws and the first legal move until the turn passes), stopping at a
/// refusal: on a loaded machine a short clock may end the game first.
async fn first_turn(client: &mut Client) {
    while client.sync().await["turn"] == "black" {
        if client.act("roll", Value::Null).await["t"] != "ack" {
            return;
        }
        let state = client.sync().await;
        if let Some(legal) = state["legal"].as_array().and_then(|l| l.first()) {
            let from = legal["from"].clone();
            if client.act("move", json!({"from": from})).await["t"] != "ack" {
                return;
            }
        }
    }
}

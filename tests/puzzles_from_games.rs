//! Puzzles from one's own games (issue 49 item 4) over real sockets: a local game is played to
//! its end with a careless policy (always the last legal move), and each mistake the analysis
//! finds is handed out as a puzzle without its answer and judged by the server; a throw that is
//! not a mistake, a live game, a made-up room, another puzzle's ticket and an illegal move are
//! each refused clearly; a game's puzzle never moves a rating.

mod common;

use common::{Browser, TestServer, local_client};
use serde_json::{Value, json};

/// Plays the local room to its end, always the last legal move; returns nothing until it ends.
async fn play_carelessly(both: &mut common::Client) {
    for _ in 0..2_000 {
        let state = both.sync().await;
        if state["phase"] == "over" {
            return;
        }
        if state["phase"] == "roll" {
            both.ok("roll", Value::Null).await;
            continue;
        }
        let from = state["legal"].as_array().and_then(|l| l.last()).unwrap()["from"].clone();
        both.ok("move", json!({ "from": from })).await;
    }
    panic!("the game did not end in 2,000 actions");
}

fn is_mistake(throw: &Value) -> bool {
    throw["label"] == "mistake" || throw["label"] == "blunder"
}

/// The analysis' throws of a careless game with mistakes: `room`'s, played already, or, in the
/// rare game where the careless policy happens to lose nothing (the throws are random: CI met
/// one), another local game's, at most five in all.
async fn throws_with_mistakes(
    server: &TestServer,
    browser: &mut Browser,
    mut room: String,
) -> (String, Vec<Value>) {
    for _ in 0..5 {
        let path = format!("/api/rooms/{room}/analysis");
        let analysis = browser.call("GET", &path, None).await.body;
        let throws = analysis["throws"].as_array().unwrap().clone();
        if throws.iter().any(is_mistake) {
            return (room, throws);
        }
        let (next, mut both) = local_client(server.addr).await;
        play_carelessly(&mut both).await;
        room = next;
    }
    panic!("five careless games without a mistake");
}

#[tokio::test]
async fn a_mistake_of_a_finished_game_is_a_puzzle_judged_by_the_server() {
    let server = TestServer::start().await;
    let (room, mut both) = local_client(server.addr).await;
    let mut browser = Browser::new(server.addr);

    // Before the end nothing is handed out: the analysis must never help a live game.
    both.ok("roll", Value::Null).await;
    let live = browser
        .call("GET", &format!("/api/puzzles/game/{room}/2"), None)
        .await;
    assert_eq!(
        (live.status, live.body["error"].as_str()),
        (404, Some("not_finished")),
        "{}",
        live.body
    );
    play_carelessly(&mut both).await;

    let (room, throws) = throws_with_mistakes(&server, &mut browser, room).await;
    let mistakes: Vec<&Value> = throws.iter().filter(|t| is_mistake(t)).collect();
    let not_one = throws
        .iter()
        .find(|t| t["kind"] == "forced" || t["label"] == "best")
        .unwrap();

    for mistake in mistakes.iter().take(3) {
        let v = mistake["v"].as_u64().unwrap();
        let path = format!("/api/puzzles/game/{room}/{v}");
        let asked = browser.call("GET", &path, None).await;
        assert_eq!(asked.status, 200, "{}", asked.body);
        let question = asked.body;
        for secret in ["best", "chance", "theme", "exact"] {
            assert!(question.get(secret).is_none(), "{question}");
        }
        let played = mistake["played"].as_u64().unwrap();
        assert_eq!(question["id"], format!("{room}/{v}"));
        assert_eq!(question["throw"], mistake["value"]);
        assert_eq!(question["turn"], mistake["side"]);
        assert!(
            question["legal"]
                .as_array()
                .unwrap()
                .contains(&json!(played))
        );
        assert_eq!(
            question["choices"].as_array().unwrap().len(),
            question["legal"].as_array().unwrap().len()
        );

        // The move played again is wrong; the analysis' best is right; neither is rated.
        let answer = |from: u64| json!({"from": from, "ticket": question["ticket"]});
        let wrong = browser
            .call("POST", &format!("{path}/answer"), Some(answer(played)))
            .await;
        assert_eq!(wrong.status, 200, "{}", wrong.body);
        assert_eq!(wrong.body["solved"], false, "{}", wrong.body);
        assert_eq!(wrong.body["best"], mistake["best"], "{}", wrong.body);
        assert!(wrong.body["rating"].is_null());
        assert_eq!(wrong.body["difficulty"], mistake["label"]);
        let chances = wrong.body["moves"].as_array().unwrap();
        let chance = |from: &Value| {
            chances.iter().find(|m| &m["from"] == from).unwrap()["chance"]
                .as_f64()
                .unwrap()
        };
        let lost = chance(&mistake["best"]) - chance(&json!(played));
        assert!(
            (lost - mistake["loss"].as_f64().unwrap()).abs() < 1e-3,
            "the verdict's chances are the analysis': {} vs {mistake}",
            wrong.body
        );
        let right = browser
            .call(
                "POST",
                &format!("{path}/answer"),
                Some(answer(mistake["best"].as_u64().unwrap())),
            )
            .await;
        assert_eq!(right.body["solved"], true, "{}", right.body);
    }

    // Refusals, each clear.
    let v = mistakes[0]["v"].as_u64().unwrap();
    let path = format!("/api/puzzles/game/{room}/{v}");
    let question = browser.call("GET", &path, None).await.body;
    let plain = not_one["v"].as_u64().unwrap();
    let no_puzzle = browser
        .call("GET", &format!("/api/puzzles/game/{room}/{plain}"), None)
        .await;
    assert_eq!(no_puzzle.status, 404, "{}", no_puzzle.body);
    assert_eq!(no_puzzle.body["error"], "puzzle_not_found");
    assert!(
        no_puzzle.body["message"]
            .as_str()
            .unwrap()
            .contains("not a mistake")
    );
    let nowhere = browser
        .call(
            "GET",
            &format!("/api/puzzles/game/{}/3", "0".repeat(32)),
            None,
        )
        .await;
    assert_eq!(
        (nowhere.status, nowhere.body["error"].as_str()),
        (404, Some("room_not_found"))
    );
    let bad_id = browser
        .call("GET", "/api/puzzles/game/not-a-room/3", None)
        .await;
    assert_eq!(bad_id.status, 404);
    let daily = browser.call("GET", "/api/puzzles/daily", None).await.body;
    let borrowed = browser
        .call(
            "POST",
            &format!("{path}/answer"),
            Some(json!({"from": mistakes[0]["played"], "ticket": daily["ticket"]})),
        )
        .await;
    assert_eq!(
        (borrowed.status, borrowed.body["error"].as_str()),
        (409, Some("puzzle_not_asked"))
    );
    let legal = question["legal"].as_array().unwrap();
    let empty = (1..=30u64).find(|s| !legal.contains(&json!(s))).unwrap();
    let illegal = browser
        .call(
            "POST",
            &format!("{path}/answer"),
            Some(json!({"from": empty, "ticket": question["ticket"]})),
        )
        .await;
    assert_eq!(
        (illegal.status, illegal.body["error"].as_str()),
        (400, Some("illegal_move"))
    );
}

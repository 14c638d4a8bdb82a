//! Puzzles (issue 49) over real sockets, on SQLite and on PostgreSQL: a question carries no
//! answer, the server judges the answer against the ticket it handed out, refuses an unknown
//! puzzle, an illegal move and an answer to a puzzle not asked for, rates only an identified
//! player's first attempt, and `senet ratings verify` recomputes the puzzle ratings.

mod common;
mod postgres_support;

use common::{Answer, Browser, TestServer, ratings_verify};
use serde_json::{Value, json};

fn error_code(answer: &Answer) -> (u16, &str) {
    (answer.status, answer.body["error"].as_str().unwrap_or(""))
}

fn answer_body(question: &Value, from: u64) -> Value {
    json!({"from": from, "ticket": question["ticket"]})
}

async fn ask(browser: &mut Browser, path: &str) -> Value {
    let asked = browser.call("GET", path, None).await;
    assert_eq!(asked.status, 200, "{path}: {}", asked.body);
    asked.body
}

fn wrong_move(question: &Value, best: u64) -> u64 {
    question["legal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap())
        .find(|&s| s != best)
        .expect("a puzzle has two legal moves or more")
}

async fn scenario(server: &TestServer, url: &str) {
    let mut anonymous = Browser::new(server.addr);
    let daily = ask(&mut anonymous, "/api/puzzles/daily").await;
    for secret in ["best", "moves", "theme", "exact"] {
        assert!(
            daily.get(secret).is_none(),
            "the question says {secret}: {daily}"
        );
    }
    assert!(daily["legal"].as_array().unwrap().len() >= 2, "{daily}");
    let id = daily["id"].as_str().unwrap().to_owned();
    let path = format!("/api/puzzles/{id}/answer");

    // Refusals: each a clear error.
    let unknown = anonymous.call("GET", "/api/puzzles/0000000000", None).await;
    assert_eq!(error_code(&unknown), (404, "puzzle_not_found"));
    let unknown_answer = anonymous
        .call(
            "POST",
            "/api/puzzles/0000000000/answer",
            Some(answer_body(&daily, 1)),
        )
        .await;
    assert_eq!(error_code(&unknown_answer), (404, "puzzle_not_found"));
    let bad_theme = anonymous
        .call("GET", "/api/puzzles/next?theme=luck", None)
        .await;
    assert_eq!(error_code(&bad_theme), (400, "bad_request"));
    let made_up = json!({"from": 1, "ticket": "1.00"});
    let not_asked = anonymous.call("POST", &path, Some(made_up)).await;
    assert_eq!(error_code(&not_asked), (409, "puzzle_not_asked"));
    let other = ask(&mut anonymous, &format!("/api/puzzles/next?after={id}")).await;
    assert_ne!(other["id"], daily["id"]);
    let borrowed = anonymous
        .call("POST", &path, Some(answer_body(&other, 1)))
        .await;
    assert_eq!(
        error_code(&borrowed),
        (409, "puzzle_not_asked"),
        "another puzzle's ticket"
    );
    let empty_square = (1..=30u64)
        .find(|s| !daily["legal"].as_array().unwrap().contains(&json!(s)))
        .unwrap();
    let illegal = anonymous
        .call("POST", &path, Some(answer_body(&daily, empty_square)))
        .await;
    assert_eq!(
        error_code(&illegal),
        (400, "illegal_move"),
        "{}",
        illegal.body
    );
    let missing = anonymous
        .call("POST", &path, Some(json!({"from": 3})))
        .await;
    assert_eq!(error_code(&missing), (400, "bad_request"));

    // An anonymous answer is judged, not rated.
    let first = daily["legal"][0].as_u64().unwrap();
    let verdict = anonymous
        .call("POST", &path, Some(answer_body(&daily, first)))
        .await;
    assert_eq!(verdict.status, 200, "{}", verdict.body);
    let best = verdict.body["best"].as_u64().unwrap();
    let solved = anonymous
        .call("POST", &path, Some(answer_body(&daily, best)))
        .await
        .body;
    assert_eq!(solved["solved"], true);
    assert!(solved["rating"].is_null(), "anonymous: no rating");
    let moves = solved["moves"].as_array().unwrap();
    let chance = |from: u64| {
        moves
            .iter()
            .find(|m| m["from"] == from)
            .map(|m| m["chance"].as_f64().unwrap())
            .unwrap()
    };
    for other in moves.iter().filter(|m| m["from"] != best) {
        assert!(
            chance(best) - other["chance"].as_f64().unwrap() >= 0.15 - 1e-4,
            "{solved}"
        );
    }

    // By theme: every puzzle handed out is of it.
    let swap = ask(&mut anonymous, "/api/puzzles/next?theme=swap").await;
    let judged = anonymous
        .call(
            "POST",
            &format!("/api/puzzles/{}/answer", swap["id"].as_str().unwrap()),
            Some(answer_body(&swap, swap["legal"][0].as_u64().unwrap())),
        )
        .await;
    assert_eq!(judged.body["theme"], "swap", "{}", judged.body);

    // An identified player: the first attempt moves the rating; the second does not. Another
    // player's ticket is not theirs.
    let mut anna = Browser::new(server.addr);
    assert_eq!(anna.call("POST", "/api/me", None).await.status, 201);
    let not_hers = anna
        .call("POST", &path, Some(answer_body(&daily, best)))
        .await;
    assert_eq!(
        error_code(&not_hers),
        (409, "puzzle_not_asked"),
        "an anonymous ticket"
    );
    let question = ask(&mut anna, &format!("/api/puzzles/{id}")).await;
    let missed = anna
        .call(
            "POST",
            &path,
            Some(answer_body(&question, wrong_move(&question, best))),
        )
        .await
        .body;
    assert_eq!(missed["solved"], false);
    let change = &missed["rating"];
    assert!(
        change["after"].as_f64() < change["before"].as_f64(),
        "{missed}"
    );
    let again = ask(&mut anna, &format!("/api/puzzles/{id}")).await;
    assert!(
        again["rating"].as_f64() > daily["rating"].as_f64(),
        "the puzzle won: {again}"
    );
    let second = anna
        .call("POST", &path, Some(answer_body(&again, best)))
        .await
        .body;
    assert_eq!(second["solved"], true);
    assert!(
        second["rating"].is_null(),
        "only the first attempt counts: {second}"
    );
    let next = ask(&mut anna, &format!("/api/puzzles/next?after={id}")).await;
    let next_path = format!("/api/puzzles/{}/answer", next["id"].as_str().unwrap());
    let first = next["legal"][0].as_u64().unwrap();
    let first_try = anna
        .call("POST", &next_path, Some(answer_body(&next, first)))
        .await;
    assert!(first_try.body["rating"].is_object(), "{}", first_try.body);

    let (code, verdict) = ratings_verify(url);
    assert_eq!(code, Some(0), "{verdict}");
    assert_eq!(verdict["puzzle_attempts"], 2, "{verdict}");
    assert_eq!(verdict["puzzle_players"], 1, "{verdict}");
}

#[tokio::test]
async fn puzzles_over_http_on_sqlite() {
    let server = TestServer::start().await;
    let url = format!("sqlite://{}", server.dir.path().join("senet.db").display());
    scenario(&server, &url).await;
}

#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
#[tokio::test]
async fn puzzles_over_http_on_postgres() {
    postgres_support::in_fresh_schema(async |url| {
        let server = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
        scenario(&server, &url).await;
    })
    .await
}

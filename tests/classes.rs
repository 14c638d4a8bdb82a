//! Classes (issue 50) over real sockets: a class of 30 pupils joining from one address by its
//! code, paired by a Swiss round, a game played, the teacher's pause, resume and end, a
//! stranger refused a class game, a pupil removed, the class deleted; the bounds (60 pupils,
//! 10 classes, the join pace); and the retention's deletion. The first runs on SQLite and
//! PostgreSQL.

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Browser, Client, TestServer, play_turn};
use serde_json::{Value, json};

async fn identified(addr: SocketAddr) -> Browser {
    let mut browser = Browser::new(addr);
    let answer = browser.call("POST", "/api/me", None).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    browser
}

/// A class opened by `teacher`: its id and code.
async fn open_class(teacher: &mut Browser, name: &str) -> (String, String) {
    let answer = teacher
        .call("POST", "/api/classes", Some(json!({"name": name})))
        .await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    let code = answer.body["code"].as_str().unwrap().to_owned();
    assert_eq!(code.len(), 10);
    (answer.body["id"].as_str().unwrap().to_owned(), code)
}

/// A pupil's browser joining with `code` (typed as a person might: lower case, a dash).
async fn join(addr: SocketAddr, code: &str, name: &str) -> (Browser, u16, Value) {
    let mut pupil = Browser::new(addr);
    let typed = format!("{}-{}", &code[..5], &code[5..]).to_lowercase();
    let answer = pupil
        .call(
            "POST",
            "/api/classes/join",
            Some(json!({"code": typed, "name": name})),
        )
        .await;
    (pupil, answer.status, answer.body)
}

async fn thirty_pupils_paired_play_and_are_run_by_their_teacher(server: TestServer) {
    let addr = server.addr;
    let mut teacher = identified(addr).await;
    let (id, code) = open_class(&mut teacher, "5B Senet").await;

    // Thirty pupils from this one address: none takes from the strangers' quotas.
    let mut pupils = Vec::new();
    for n in 1..=30 {
        let (pupil, status, body) = join(addr, &code, &format!("Pupil {n}")).await;
        assert_eq!(status, 201, "pupil {n}: {body}");
        assert_eq!(body["class"]["name"], "5B Senet");
        assert!(pupil.pupil.is_some(), "the senet_pupil cookie");
        assert!(pupil.cookie.is_none(), "a pupil is not a player");
        pupils.push(pupil);
    }
    let (_, status, body) = join(addr, &code, "PUPIL 7").await;
    assert_eq!((status, &body["error"]), (409, &json!("pupil_name_taken")));
    let (_, status, body) = join(addr, "ACDEFGHJKM", "Eve").await;
    assert_eq!(
        (status, &body["error"]),
        (404, &json!("class_code_unknown"))
    );
    let (_, status, body) = join(addr, &code, "semi;colon").await;
    assert_eq!(
        (status, &body["error"]),
        (400, &json!("bad_name")),
        "{body}"
    );

    // A quick Swiss round: 15 boards, nobody twice; pressing again starts nothing.
    let pair = json!({"how": "swiss", "clock": {"initial": 300, "increment": 2}});
    let path = format!("/api/classes/{id}/pair");
    let started = teacher.call("POST", &path, Some(pair.clone())).await;
    assert_eq!(started.status, 200, "{}", started.body);
    assert_eq!(started.body, json!({"games": 15, "against_computer": 0}));
    let again = teacher.call("POST", &path, Some(pair)).await;
    assert_eq!(again.body, json!({"games": 0, "against_computer": 0}));

    let mut seats = Vec::new();
    for pupil in &mut pupils {
        let me = pupil.call("GET", "/api/class/me", None).await;
        assert_eq!(me.status, 200, "{}", me.body);
        let game = &me.body["game"];
        seats.push((
            game["room"].as_str().unwrap().to_owned(),
            game["seat"].as_str().unwrap().to_owned(),
            game["token"].as_str().unwrap().to_owned(),
        ));
    }
    let mut rooms: Vec<&str> = seats.iter().map(|(room, ..)| room.as_str()).collect();
    rooms.sort();
    rooms.dedup();
    assert_eq!(rooms.len(), 15, "two pupils a room");

    // One board played: black's turn, then white sees it.
    let room = seats[0].0.clone();
    let mut at_board: Vec<(String, Client)> = Vec::new();
    for (r, seat, token) in seats.iter().filter(|(r, ..)| *r == room) {
        at_board.push((seat.clone(), Client::join(addr, r, Some(token)).await));
    }
    at_board.sort_by(|a, b| a.0.cmp(&b.0));
    let (mut black, mut white) = (at_board.remove(0).1, at_board.remove(0).1);
    let played = play_turn(&mut black, "black").await;
    assert!(
        played
            .iter()
            .any(|e| e["t"] == "moved" || e["t"] == "rolled")
    );
    assert_eq!(white.sync().await["turn"], "white");
    // The teacher chose no chat: not even a preset.
    let hello = json!({"preset": "hello"});
    white.refused("chat", hello, "chat_not_allowed").await;

    // A stranger cannot sit at a class game.
    let (status, refused) = common::http(
        addr,
        "POST",
        &format!("/api/rooms/{room}/join"),
        Some(json!({})),
    )
    .await;
    assert_eq!(
        (status, &refused["error"]),
        (409, &json!("room_full")),
        "{refused}"
    );

    // Pause every clock, then resume: the board hears both.
    let paused = teacher
        .call("POST", &format!("/api/classes/{id}/pause"), None)
        .await;
    assert_eq!(paused.body, json!({"games": 15}));
    white.wait_for("paused").await;
    let resumed = teacher
        .call("POST", &format!("/api/classes/{id}/resume"), None)
        .await;
    assert_eq!(resumed.body, json!({"games": 15}));
    white.wait_for("resumed").await;

    // The teacher sees every pupil and game; nobody else sees the class at all.
    let shown = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    assert_eq!(shown.body["pupils"].as_array().unwrap().len(), 30);
    let games = shown.body["games"].as_array().unwrap();
    assert_eq!(games.len(), 15);
    assert!(games.iter().all(|game| game["in_play"] == true));
    let mut other = identified(addr).await;
    let hidden = other.call("GET", &format!("/api/classes/{id}"), None).await;
    assert_eq!(
        (hidden.status, &hidden.body["error"]),
        (404, &json!("class_not_found"))
    );
    let anonymous = Browser::new(addr)
        .call("GET", &format!("/api/classes/{id}/report.csv"), None)
        .await;
    assert_eq!(anonymous.status, 404);

    // End them all: the board hears the game's end, with the teacher's note.
    let ended = teacher
        .call("POST", &format!("/api/classes/{id}/end"), None)
        .await;
    assert_eq!(ended.body, json!({"games": 15}));
    let over = white.wait_for("game-over").await;
    assert_eq!(over["d"]["note"], "ended by the teacher", "{over}");
    let shown = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    let games = shown.body["games"].as_array().unwrap();
    assert!(games.iter().all(|game| game["in_play"] == false));
    let report = &shown.body["pupils"][0];
    assert_eq!(
        (report["played"].as_u64(), report["unfinished"].as_u64()),
        (Some(1), Some(1))
    );

    // The CSV has a header and a line per pupil.
    let csv = teacher
        .call("GET", &format!("/api/classes/{id}/report.csv"), None)
        .await;
    assert_eq!(csv.status, 200);
    let text = teacher.seen.last().unwrap();
    assert_eq!(text.lines().count(), 31, "{text}");
    assert!(text.contains("\"Pupil 1\",1,0,0,1,"), "{text}");

    // A pupil removed is out; a deleted class takes every pupil with it.
    let pupil_id = shown.body["pupils"][29]["id"].as_str().unwrap().to_owned();
    let removed = teacher
        .call(
            "DELETE",
            &format!("/api/classes/{id}/pupils/{pupil_id}"),
            None,
        )
        .await;
    assert_eq!(removed.status, 204);
    let gone = pupils[29].call("GET", "/api/class/me", None).await;
    assert_eq!(
        (gone.status, &gone.body["error"]),
        (404, &json!("no_pupil"))
    );
    let deleted = teacher
        .call("DELETE", &format!("/api/classes/{id}"), None)
        .await;
    assert_eq!(deleted.status, 204);
    let gone = pupils[0].call("GET", "/api/class/me", None).await;
    assert_eq!(gone.status, 404);
    let (_, status, _) = join(addr, &code, "Late").await;
    assert_eq!(status, 404);
    black.close().await;
    white.close().await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_class_of_thirty_from_one_address_is_paired_plays_and_is_run_by_its_teacher() {
    thirty_pupils_paired_play_and_are_run_by_their_teacher(TestServer::start().await).await;
}

async fn a_class_of_thirty_on_postgres(url: String) {
    let server = TestServer::start_with(move |config| config.database_url = url).await;
    thirty_pupils_paired_play_and_are_run_by_their_teacher(server).await;
}

postgres_support::postgres_tests!(a_class_of_thirty_on_postgres, refusals_on_postgres);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_report_the_odd_pupil_and_the_computer() {
    let server = TestServer::start().await;
    let mut teacher = identified(server.addr).await;
    let (id, code) = open_class(&mut teacher, "Odd").await;
    let mut pupils = Vec::new();
    for name in ["Ana", "Bo", "Cy"] {
        let (pupil, status, _) = join(server.addr, &code, name).await;
        assert_eq!(status, 201);
        pupils.push(pupil);
    }
    let random = json!({"how": "random", "level": "easy"});
    let started = teacher
        .call("POST", &format!("/api/classes/{id}/pair"), Some(random))
        .await;
    assert_eq!(started.body, json!({"games": 2, "against_computer": 1}));
    let shown = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    let computer = shown.body["games"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|game| game["black"] == "computer" || game["white"] == "computer")
        .count();
    assert_eq!(computer, 1);

    // A lesson for all: each pupil's page reads it; a pupil's lesson done is in the report.
    let lesson = senet::lessons::lessons().unwrap()[0].id.clone();
    let set = teacher
        .call(
            "POST",
            &format!("/api/classes/{id}/lesson"),
            Some(json!({"lesson": lesson})),
        )
        .await;
    assert_eq!(set.status, 204, "{}", set.body);
    let bad = teacher
        .call(
            "POST",
            &format!("/api/classes/{id}/lesson"),
            Some(json!({"lesson": "nope"})),
        )
        .await;
    assert_eq!(bad.status, 400);
    let me = pupils[0].call("GET", "/api/class/me", None).await;
    assert_eq!(me.body["class"]["lesson"], json!(lesson));
    let done = pupils[0]
        .call("POST", &format!("/api/class/me/lessons/{lesson}"), None)
        .await;
    assert_eq!(done.status, 204);
    let csv = teacher
        .call("GET", &format!("/api/classes/{id}/report.csv"), None)
        .await;
    assert_eq!(csv.status, 200);
    let shown = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    assert_eq!(shown.body["pupils"][0]["lessons"], json!([lesson]));

    // The QR code is an SVG of the join page's address.
    let qr = teacher
        .call("GET", &format!("/api/classes/{id}/qr.svg"), None)
        .await;
    assert_eq!(qr.status, 200);
    server.stop().await;
}

/// "Needs practice": a pupil's refused touches counted per rule (known rules only, each count
/// capped), shown to the teacher beside the lesson that teaches the rule, and in the CSV.
async fn refusals_are_counted_per_pupil_and_rule(server: TestServer) {
    let addr = server.addr;
    let mut teacher = identified(addr).await;
    let (id, code) = open_class(&mut teacher, "Practice").await;
    let (mut mia, status, _) = join(addr, &code, "Mia").await;
    assert_eq!(status, 201);
    let (mut tom, _, _) = join(addr, &code, "Tom").await;
    let path = "/api/class/me/stumbles";
    let stumble = |rule: &str| Some(json!({ "rule": rule }));
    for rule in [
        "must_stop_on_26",
        "blocked",
        "must_stop_on_26",
        "must_stop_on_26",
    ] {
        assert_eq!(mia.call("POST", path, stumble(rule)).await.status, 204);
    }
    for refused in [
        stumble("game_over"),
        stumble(&"x".repeat(3000)),
        Some(json!({"rule": "blocked", "more": 1})),
    ] {
        let answer = mia.call("POST", path, refused).await;
        assert_eq!(
            (answer.status, &answer.body["error"]),
            (400, &json!("bad_request"))
        );
    }
    assert!(
        mia.call("POST", path, stumble("game_over")).await.body["message"]
            .as_str()
            .unwrap()
            .contains("must_stop_on_26"),
        "the refusal names the rules counted"
    );
    let stranger = Browser::new(addr)
        .call("POST", path, stumble("blocked"))
        .await;
    assert_eq!(
        (stranger.status, &stranger.body["error"]),
        (404, &json!("no_pupil"))
    );
    // A count stops at its cap, however often it is sent.
    for _ in 0..1001 {
        tom.call("POST", path, stumble("safe_square")).await;
    }

    let shown = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    assert_eq!(
        shown.body["pupils"][0]["needs_practice"],
        json!([
            {"rule": "must_stop_on_26", "count": 3, "lesson": "must-stop-26"},
            {"rule": "blocked", "count": 1, "lesson": "block-land"},
        ])
    );
    assert_eq!(
        shown.body["pupils"][1]["needs_practice"],
        json!([{"rule": "safe_square", "count": 999, "lesson": "safe-15"}])
    );
    let answer = teacher
        .call("GET", &format!("/api/classes/{id}/report.csv"), None)
        .await;
    assert_eq!(answer.status, 200);
    let csv = teacher.seen.last().unwrap();
    assert!(csv.starts_with("name,played,won,lost,unfinished,lessons,needs_practice\r\n"));
    assert!(
        csv.contains("\"Mia\",0,0,0,0,\"\",\"must_stop_on_26:3 blocked:1\""),
        "{csv}"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refusals_are_counted_per_pupil_and_rule_on_sqlite() {
    refusals_are_counted_per_pupil_and_rule(TestServer::start().await).await;
}

async fn refusals_on_postgres(url: String) {
    let server = TestServer::start_with(move |config| config.database_url = url).await;
    refusals_are_counted_per_pupil_and_rule(server).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_bounds_sixty_pupils_ten_classes_and_the_join_pace() {
    let server = TestServer::start_with(|config| {
        config.edge.class_join_burst = 64;
        config.edge.class_join_per_minute = 1;
    })
    .await;
    let addr = server.addr;
    let mut teacher = identified(addr).await;
    let (_, code) = open_class(&mut teacher, "Big").await;
    for n in 1..=60 {
        let (_, status, body) = join(addr, &code, &format!("P{n}")).await;
        assert_eq!(status, 201, "{n}: {body}");
    }
    let (_, status, body) = join(addr, &code, "P61").await;
    assert_eq!((status, &body["error"]), (409, &json!("class_full")));

    // Nine more classes, then the eleventh is refused.
    for n in 2..=10 {
        open_class(&mut teacher, &format!("Class {n}")).await;
    }
    let eleventh = teacher
        .call("POST", "/api/classes", Some(json!({"name": "Eleven"})))
        .await;
    assert_eq!(
        (eleventh.status, &eleventh.body["error"]),
        (429, &json!("too_many_classes"))
    );
    let bad = teacher
        .call("POST", "/api/classes", Some(json!({"name": ""})))
        .await;
    assert_eq!(bad.status, 400);

    // Guessing: wrong codes spend the address's join allowance; then even the right code waits.
    let mut refused = None;
    for _ in 0..5 {
        let (_, status, body) = join(addr, "ACDEFGHJKM", "Guess").await;
        if status == 429 {
            refused = Some(body);
            break;
        }
        assert_eq!(
            (status, &body["error"]),
            (404, &json!("class_code_unknown"))
        );
    }
    assert_eq!(refused.unwrap()["error"], "rate_limited");
    let (_, status, _) = join(addr, &code, "Late").await;
    assert_eq!(status, 429);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_class_and_its_pupils_names_are_deleted_at_its_retention() {
    let server = TestServer::start_with(|config| {
        config.class_retention = Duration::from_secs(2);
    })
    .await;
    let addr = server.addr;
    let mut teacher = identified(addr).await;
    let (id, code) = open_class(&mut teacher, "Short").await;
    let shown = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    let (created, expires) = (
        shown.body["created_at"].as_i64().unwrap(),
        shown.body["expires_at"].as_i64().unwrap(),
    );
    assert_eq!(expires - created, 2_000, "the teacher sees when it goes");
    let (mut pupil, status, _) = join(addr, &code, "Zoe").await;
    assert_eq!(status, 201);
    let url = format!("sqlite://{}", server.dir.path().join("senet.db").display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let names = || async {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM class_pupils")
            .fetch_one(&pool)
            .await
            .unwrap();
        count
    };
    assert_eq!(names().await, 1);
    let stumbled = Some(json!({"rule": "blocked"}));
    let answer = pupil.call("POST", "/api/class/me/stumbles", stumbled).await;
    assert_eq!(answer.status, 204);
    tokio::time::sleep(Duration::from_millis(3_000)).await;
    let gone = teacher
        .call("GET", &format!("/api/classes/{id}"), None)
        .await;
    assert_eq!(gone.status, 404);
    let me = pupil.call("GET", "/api/class/me", None).await;
    assert_eq!(me.status, 404);
    assert_eq!(
        names().await,
        0,
        "the pupils' names are deleted, not only hidden"
    );
    let classes: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM classes")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(classes, 0);
    let stumbles: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM class_stumbles")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stumbles, 0, "the counts go with the class");
    server.stop().await;
}

//! The tournament routes' bounds (issue 45 item 5), each answered with a clear error: who may
//! create, every setting's range, the upcoming tournaments per creator and the open ones per
//! instance; joining, pausing and withdrawing where they do not apply; an unknown id; the
//! lists; and a tournament below two players at its start, cancelled by its director.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Browser, TestServer};
use serde_json::{Value, json};

fn now_ms() -> i64 {
    senet::room::now_ms()
}

async fn identified(addr: SocketAddr) -> Browser {
    let mut browser = Browser::new(addr);
    let answer = browser.call("POST", "/api/me", None).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    browser
}

/// A valid Swiss starting in an hour, with `changes` over it.
fn swiss(changes: Value) -> Value {
    let mut body = json!({
        "name": "Autumn Swiss", "format": "swiss", "rounds": 5,
        "clock": {"initial": 300, "increment": 3},
        "starts_at": now_ms() + 3_600_000, "rated": false,
    });
    for (key, value) in changes.as_object().unwrap() {
        match value {
            Value::Null => body.as_object_mut().unwrap().remove(key),
            value => body
                .as_object_mut()
                .unwrap()
                .insert(key.clone(), value.clone()),
        };
    }
    body
}

/// `POST /api/tournaments` must be refused with `status` and `code`, the message naming `words`.
async fn refused(browser: &mut Browser, body: Value, status: u16, code: &str, words: &str) {
    let answer = browser
        .call("POST", "/api/tournaments", Some(body.clone()))
        .await;
    assert_eq!(answer.status, status, "{body}: {}", answer.body);
    assert_eq!(answer.body["error"], code, "{body}: {}", answer.body);
    let message = answer.body["message"].as_str().unwrap();
    assert!(message.contains(words), "{body}: {message}");
}

#[tokio::test]
async fn every_setting_out_of_bounds_is_refused_with_a_clear_error() {
    let server = TestServer::start().await;
    let mut stranger = Browser::new(server.addr);
    refused(
        &mut stranger,
        swiss(json!({})),
        404,
        "no_player",
        "POST /api/me",
    )
    .await;

    let mut anna = identified(server.addr).await;
    let name = "name must be 3–30 characters";
    let format = "format must be";
    let cases = [
        (json!({"name": "ab"}), name),
        (json!({"name": "a".repeat(31)}), name),
        (json!({"name": "two  spaces"}), name),
        (json!({"name": " edge"}), name),
        (json!({"name": "semi;colon"}), name),
        (json!({"rounds": 2}), format),
        (json!({"rounds": 12}), format),
        (json!({"rounds": null}), format),
        (
            json!({"format": "arena", "rounds": null, "minutes": 9}),
            format,
        ),
        (
            json!({"format": "arena", "rounds": null, "minutes": 121}),
            format,
        ),
        (json!({"format": "knockout"}), format),
        (
            json!({"clock": {"initial": 300, "increment": 0, "days": 3}}),
            "correspondence",
        ),
        (
            json!({"clock": {"initial": 5, "increment": 0}}),
            "clock.initial",
        ),
        (json!({"starts_at": now_ms() + 8 * 86_400_000}), "7 days"),
        (json!({"starts_at": now_ms() - 3_600_000}), "7 days"),
        (
            json!({"min_rating": 1600, "max_rating": 1400}),
            "min_rating",
        ),
    ];
    for (changes, words) in cases {
        refused(&mut anna, swiss(changes), 400, "bad_request", words).await;
    }
    // At the bounds: accepted.
    for changes in [
        json!({"name": "Abc", "rounds": 3}),
        json!({"name": "x".repeat(30), "rounds": 11}),
    ] {
        let answer = anna
            .call("POST", "/api/tournaments", Some(swiss(changes.clone())))
            .await;
        assert_eq!(answer.status, 201, "{changes}: {}", answer.body);
    }
    // A third upcoming one from the same creator.
    refused(
        &mut anna,
        swiss(json!({})),
        429,
        "too_many_tournaments",
        "upcoming",
    )
    .await;
    server.stop().await;
}

#[tokio::test]
async fn an_instance_runs_at_most_its_number_of_tournaments() {
    let server = TestServer::start().await;
    let max = senet::tournament::director::MAX_DIRECTED as usize;
    for _ in 0..max / 2 {
        let mut creator = identified(server.addr).await;
        for _ in 0..2 {
            let answer = creator
                .call("POST", "/api/tournaments", Some(swiss(json!({}))))
                .await;
            assert_eq!(answer.status, 201, "{}", answer.body);
        }
    }
    let mut late = identified(server.addr).await;
    refused(
        &mut late,
        swiss(json!({})),
        429,
        "too_many_tournaments",
        "runs as many",
    )
    .await;
    let listed = late.call("GET", "/api/tournaments", None).await.body;
    assert_eq!(
        listed["upcoming"].as_array().unwrap().len(),
        50,
        "a page of 50"
    );
    server.stop().await;
}

#[tokio::test]
async fn joining_pausing_and_withdrawing_where_they_do_not_apply_are_refused() {
    let server = TestServer::start().await;
    let mut anna = identified(server.addr).await;
    let created = anna
        .call(
            "POST",
            "/api/tournaments",
            Some(swiss(json!({"min_rating": 1600}))),
        )
        .await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let path = format!("/api/tournaments/{id}");

    // A new player's rating (1500) is below the limit.
    let answer = anna.call("POST", &format!("{path}/join"), None).await;
    assert_eq!(
        (answer.status, &answer.body["error"]),
        (403, &json!("tournament_closed"))
    );
    assert!(answer.body["message"].as_str().unwrap().contains("1500"));

    let open = anna
        .call("POST", "/api/tournaments", Some(swiss(json!({}))))
        .await;
    let id = open.body["id"].as_str().unwrap().to_owned();
    let path = format!("/api/tournaments/{id}");
    let answer = anna.call("POST", &format!("{path}/withdraw"), None).await;
    assert_eq!(
        (answer.status, &answer.body["error"]),
        (409, &json!("tournament_closed"))
    );
    assert_eq!(
        anna.call("POST", &format!("{path}/join"), None)
            .await
            .status,
        200
    );
    let again = anna.call("POST", &format!("{path}/join"), None).await;
    assert_eq!(
        (again.status, &again.body["error"]),
        (409, &json!("tournament_closed"))
    );
    assert!(
        again.body["message"]
            .as_str()
            .unwrap()
            .contains("registered already")
    );
    let pause = anna.call("POST", &format!("{path}/pause"), None).await;
    assert_eq!(
        (pause.status, &pause.body["error"]),
        (400, &json!("bad_request"))
    );
    let shown = anna.call("GET", &path, None).await.body;
    assert_eq!(shown["you"]["player"], 1);
    assert_eq!(shown["settings"]["rounds"], 5);
    assert_eq!(
        Browser::new(server.addr)
            .call("POST", &format!("{path}/join"), None)
            .await
            .status,
        404
    );

    let unknown = anna
        .call("GET", &format!("/api/tournaments/{}", "0".repeat(32)), None)
        .await;
    assert_eq!(
        (unknown.status, &unknown.body["error"]),
        (404, &json!("tournament_not_found"))
    );
    let junk = anna.call("GET", "/api/tournaments/..%2Fx", None).await;
    assert_eq!(junk.status, 404);
    server.stop().await;
}

/// One player at the start: the director cancels it and says why; it is listed as cancelled.
#[tokio::test]
async fn a_tournament_below_two_players_at_its_start_is_cancelled() {
    let server = TestServer::start().await;
    let mut anna = identified(server.addr).await;
    let body = swiss(json!({"starts_at": now_ms() + 500}));
    let created = anna.call("POST", "/api/tournaments", Some(body)).await;
    let id = created.body["id"].as_str().unwrap().to_owned();
    let path = format!("/api/tournaments/{id}");
    assert_eq!(
        anna.call("POST", &format!("{path}/join"), None)
            .await
            .status,
        200
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while anna.call("GET", &path, None).await.body["status"] != "cancelled" {
        assert!(tokio::time::Instant::now() < deadline, "not cancelled");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let store = senet::store::open(&format!(
        "sqlite://{}",
        server.dir.path().join("senet.db").display()
    ))
    .await
    .unwrap();
    let log = store.tournaments.tournament_events(&id, 0).await.unwrap();
    let last = log.last().unwrap();
    assert_eq!(last.kind, "cancelled");
    assert!(
        last.data.contains("1 player(s) at the start; 2 needed"),
        "{}",
        last.data
    );
    let listed = anna.call("GET", "/api/tournaments", None).await.body;
    assert_eq!(listed["cancelled"][0]["id"], json!(id));
    let late = anna.call("POST", &format!("{path}/join"), None).await;
    assert_eq!(late.status, 409);
    server.stop().await;
}

//! `GET /api/rooms/{id}/analysis` on a real server: refused while the game
//! is on, answered after its end, and computed only once (the second answer
//! is read from the store: `senet_analysis_seconds` counts one analysis).

mod common;

use common::*;
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
    let created = create_room(server.addr, "local", "black").await;
    let room = created["room"].as_str().unwrap();
    let mut both = Client::join(server.addr, room, created["token"].as_str()).await;
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
    let computed = analyses_computed(server.addr).await;
    assert!(computed >= 1, "the first request computed nothing");

    let (status, second) = http(server.addr, "GET", &path, None).await;
    assert_eq!((status, &second), (200, &first));
    assert_eq!(
        analyses_computed(server.addr).await,
        computed,
        "the second request recomputed"
    );

    let (status, body) = http(server.addr, "GET", "/api/rooms/unknown/analysis", None).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (404, Some("room_not_found"))
    );
}

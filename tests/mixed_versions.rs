//! The previous release and this code serve one PostgreSQL schema at once, as during a rolling
//! update (issue 47, docs/UPGRADES.md). The previous release (the newest CHANGELOG.md names) is
//! built from its commit by `scripts/release-bin.sh` (a debug build, once per checkout: a few
//! minutes the first time), unless `SENET_PREVIOUS_BIN` names its binary.
//!
//! An instance of the previous release migrates a fresh schema to its own, then one of this code
//! expands it. A rated game is played between a player whose browser and socket are on the old
//! instance and one on the new, with chat across; midway the old instance is stopped as a
//! rolling update stops it (SIGTERM) and its player reconnects to the new one with their token
//! and plays on. Every action acknowledged on either instance is in the record, the record
//! verifies, the rating is applied once and `senet ratings verify` agrees. An old instance that
//! restarts on the expanded schema is refused (0.1.0 refuses migrations it does not know).

mod common;
#[allow(dead_code)]
mod postgres_support;

use std::net::SocketAddr;

use common::{Browser, ChildServer, Client, ratings_verify, record, verify_accepted};
use serde_json::{Value, json};

fn previous_bin() -> String {
    if let Ok(bin) = std::env::var("SENET_PREVIOUS_BIN") {
        return bin;
    }
    let built = std::process::Command::new("scripts/release-bin.sh")
        .env("SENET_RELEASE_PROFILE", "dev")
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap();
    assert!(built.status.success(), "scripts/release-bin.sh failed");
    String::from_utf8(built.stdout).unwrap().trim().to_owned()
}

/// A player with a name, made on the instance at `addr`.
async fn player(addr: SocketAddr, name: &str) -> Browser {
    let mut browser = Browser::new(addr);
    assert_eq!(browser.call("POST", "/api/me", None).await.status, 201);
    let named = browser
        .call("PUT", "/api/me/name", Some(json!({ "name": name })))
        .await;
    assert_eq!(named.status, 200, "{}", named.body);
    browser
}

/// One action of the side to move; the actions acknowledged, counted.
async fn act(mover: &mut Client, acked: &mut Vec<u64>) -> bool {
    let state = mover.sync().await;
    let (t, d) = match state["phase"].as_str().unwrap() {
        "roll" => ("roll", Value::Null),
        "move" => ("move", json!({"from": state["legal"][0]["from"]})),
        _ => return false,
    };
    mover.ok(t, d).await;
    acked.push(mover.last_v());
    true
}

/// Plays until the game is over or `limit` actions were made. The sides' sockets may be on
/// different instances: both first hear of the last action before anyone looks at the state.
async fn play(black: &mut Client, white: &mut Client, limit: usize, acked: &mut Vec<u64>) {
    for _ in 0..limit {
        let last = acked.last().copied().unwrap_or(0);
        black.wait_for_v(last).await;
        white.wait_for_v(last).await;
        let turn = black.sync().await["turn"].as_str().unwrap().to_owned();
        let mover = if turn == "black" {
            &mut *black
        } else {
            &mut *white
        };
        if !act(mover, acked).await {
            return;
        }
    }
}

async fn old_and_new_serve_one_schema(url: String) {
    let logs = tempfile::tempdir().unwrap();
    let old = ChildServer::start_release(&previous_bin(), &url, &logs.path().join("old.log")).await;
    let new = ChildServer::start_url(&url, &logs.path().join("new.log"), &[]).await;

    let mut ankh = player(old.addr, "Ankh").await;
    let mut bes = player(new.addr, "Bes").await;
    let rated = json!({"mode": "online", "side": "black", "rated": true});
    let created = ankh.call("POST", "/api/rooms", Some(rated)).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let room = created.body["room"].as_str().unwrap().to_owned();
    let joined = bes
        .call("POST", &format!("/api/rooms/{room}/join"), Some(json!({})))
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let token = |body: &Value| body["token"].as_str().unwrap().to_owned();
    let (black_token, white_token) = (token(&created.body), token(&joined.body));
    let mut black =
        Client::join_as(old.addr, &room, Some(&black_token), ankh.cookie.as_deref()).await;
    let mut white =
        Client::join_as(new.addr, &room, Some(&white_token), bes.cookie.as_deref()).await;

    black.ok("chat", json!({"preset": "good-luck"})).await;
    white.ok("chat", json!({"preset": "have-fun"})).await;
    let mut acked = Vec::new();
    play(&mut black, &mut white, 40, &mut acked).await;

    // The rolling update reaches the old instance: its player comes back on the new one.
    old.terminate().await;
    let mut black =
        Client::join_as(new.addr, &room, Some(&black_token), ankh.cookie.as_deref()).await;
    play(&mut black, &mut white, 10_000, &mut acked).await;
    assert_eq!(black.sync().await["phase"], "over");

    let record = record(new.addr, &room).await;
    let logged: Vec<u64> = record["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["v"].as_u64().unwrap())
        .collect();
    for v in &acked {
        assert!(
            logged.contains(v),
            "acknowledged version {v} is not in the record"
        );
    }
    assert!(
        acked.len() > 40,
        "the game was played on both sides of the update"
    );
    verify_accepted(&record).await;
    let said = record["events"].as_array().unwrap().iter();
    assert_eq!(said.filter(|e| e["t"] == "said").count(), 2);
    let (code, verdict) = ratings_verify(&url);
    assert_eq!(code, Some(0), "senet ratings verify: {verdict}");
    ankh.addr = new.addr;
    let me = ankh.call("GET", "/api/me", None).await;
    assert_eq!(
        me.body["wins"].as_u64().unwrap() + me.body["losses"].as_u64().unwrap(),
        1
    );

    // An old instance restarting now meets a migration it does not know.
    let stderr = common::serve_refused(&previous_bin(), &url).await;
    assert!(
        stderr.contains("missing in the resolved migrations"),
        "{stderr}"
    );
    new.terminate().await;
}
postgres_support::postgres_tests!(old_and_new_serve_one_schema);

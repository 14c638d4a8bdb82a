//! The cost of many idle correspondence games (issue 46, item 2), measured, not asserted in CI:
//! `cargo test --test cold_games -- --ignored --nocapture` (`SENET_COLD_GAMES`, default 100,000).
//! One real game is made over HTTP, then copied in SQL under new ids (the same seats' token
//! hashes, so its tokens act in every copy); a server started on that database holds none of
//! them in memory, and the first action on each of 300 random cold games is timed: WebSocket
//! open, hello, `state` (the room loaded from the store), `roll` and its `ack`.

mod common;

use std::time::{Duration, Instant};

use common::{Client, TestServer, http};
use serde_json::{Value, json};

/// `INSERT INTO {table} SELECT` every column of `table`, `key` replaced by the n-th new id.
async fn copy_rows(
    db: &mut sqlx::SqliteConnection,
    table: &str,
    key: &str,
    template: &str,
    n: u32,
) {
    let columns: Vec<(String,)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT name FROM pragma_table_info('{table}')"
    )))
    .fetch_all(&mut *db)
    .await
    .unwrap();
    let names: Vec<&str> = columns.iter().map(|(name,)| name.as_str()).collect();
    let chosen: Vec<String> = names
        .iter()
        .map(|name| match *name == key {
            true => "printf('%032x', n.i)".to_string(),
            false => format!("t.{name}"),
        })
        .collect();
    let sql = format!(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < {n}) \
         INSERT INTO {table} ({}) SELECT {} FROM n, {table} t WHERE t.{key} = '{template}'",
        names.join(", "),
        chosen.join(", ")
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .execute(&mut *db)
        .await
        .unwrap();
}

#[tokio::test]
#[ignore = "a measurement: run by hand (docs/PERFORMANCE.md, \"Cold correspondence games\")"]
async fn the_first_action_on_a_cold_correspondence_game() {
    let games: u32 = std::env::var("SENET_COLD_GAMES")
        .map(|n| n.parse().unwrap())
        .unwrap_or(100_000);
    let server = TestServer::start().await;
    let body = json!({"mode": "online", "side": "black", "clock": {"days": 3}});
    let (status, created) = http(server.addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201);
    let template = created["room"].as_str().unwrap().to_string();
    let black = created["token"].as_str().unwrap().to_string();
    common::join_room(server.addr, &template).await;
    let server = server.restart_with(|_| {}).await;
    let url = format!("sqlite://{}", server.dir.path().join("senet.db").display());
    let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    let copying = Instant::now();
    for (table, key) in [
        ("rooms", "id"),
        ("events", "room"),
        ("room_summaries", "room"),
        ("correspondence_turns", "room"),
    ] {
        copy_rows(&mut db, table, key, &template, games).await;
    }
    eprintln!("{games} games copied in {:?}", copying.elapsed());
    drop(db);

    let server = server.restart_with(|_| {}).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let pid = std::process::id();
    let rss = senet::os::resident_memory_bytes(pid).unwrap();
    assert_eq!(
        server.rooms.live_count(),
        0,
        "an idle correspondence game is not in memory"
    );

    let mut times = Vec::new();
    for k in 0..300u32 {
        let id = format!("{:032x}", 1 + (k.wrapping_mul(2_654_435_761) % games));
        let start = Instant::now();
        let mut client = Client::join(server.addr, &id, Some(&black)).await;
        let reply: Value = client.act("roll", Value::Null).await;
        times.push(start.elapsed());
        assert_ne!(reply["t"], "error", "{reply}");
        client.close().await;
    }
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    eprintln!(
        "{games} cold games; first action over 300: p50 {:?}, p99 {:?}, max {:?}; RSS with none loaded {} MiB, live {}",
        at(0.5),
        at(0.99),
        times.last().unwrap(),
        rss >> 20,
        server.rooms.live_count()
    );
}

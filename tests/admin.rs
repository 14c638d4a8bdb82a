//! `senet admin` (the real binary) against real servers, on SQLite and PostgreSQL: a ban made
//! from the command line is enforced by two instances on one database within seconds (403 and
//! the page, a WebSocket handshake included; other addresses and the probes unaffected),
//! listed, lifted, and every action is in the audit log with who did it and why. A game ended
//! from the command line ends for its players and spectators on both instances within seconds,
//! with the operator's reason, in its record (which `senet verify` accepts) and the audit log.
//! A ban closes the banned client's open sockets on every instance within seconds (issue 44).

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const BANNED: &str = "203.0.113.9";
const OTHER: &str = "198.51.100.1";

/// A GET of `path` as the client `from` (the servers trust 127.0.0.1 as their proxy):
/// the status and the body.
async fn get_from(server: SocketAddr, path: &str, from: &str) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(server).await.unwrap();
    let request = format!(
        "GET {path} HTTP/1.1\r\nhost: senet\r\nx-forwarded-for: {from}\r\n\
         connection: upgrade, close\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\n\
         sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(2), stream.read_to_end(&mut answer)).await;
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer.split(' ').nth(1).unwrap_or("0").parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned());
    (status, body.unwrap_or_default())
}

/// Waits until `path` answers `status` to `from`; returns how long that took.
async fn wait_for_status(server: SocketAddr, path: &str, from: &str, status: u16) -> Duration {
    let started = Instant::now();
    while get_from(server, path, from).await.0 != status {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{path} never answered {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    started.elapsed()
}

/// A started game is listed by `senet admin rooms`; a finished one and an unstarted one are not.
async fn live_rooms_are_listed(url: &str, server: &TestServer) {
    let mut started = Vec::new();
    for _ in 0..2 {
        let created = create_room(server.addr, "online", "black").await;
        let room = created["room"].as_str().unwrap().to_string();
        let joined = join_room(server.addr, &room).await;
        started.push((room, created, joined));
    }
    let (over, token, _) = &started[1];
    let mut black = Client::join(server.addr, over, token["token"].as_str()).await;
    black.ok("resign", Value::Null).await;
    let (code, listed, stderr) = admin(url, &["rooms"]).await;
    assert_eq!(code, 0, "{stderr}");
    let rooms: Vec<_> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["room"].clone())
        .collect();
    assert_eq!(rooms, [Value::from(started[0].0.clone())], "{listed}");
    assert_eq!(listed[0]["mode"], "online");
}

async fn bans_reach_every_instance(url: String) {
    let trusting = |config: &mut senet::server::config::Config| {
        config.edge.trusted_proxies = "127.0.0.1".parse().unwrap();
    };
    let one = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), trusting).await;
    let two = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), trusting).await;
    let room = create_room(one.addr, "online", "black").await["room"]
        .as_str()
        .unwrap()
        .to_string();
    let socket = format!("/ws/rooms/{room}");
    assert_eq!(get_from(two.addr, &socket, BANNED).await.0, 101);
    live_rooms_are_listed(&url, &one).await;

    let reason = ["--reason", "flooding <rooms>", "--as", "alice"];
    let ban = [&["ban", "203.0.113.0/24", "--for", "1h"][..], &reason].concat();
    let (code, banned, stderr) = admin(&url, &ban).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(banned["network"], "203.0.113.0/24");
    let id = banned["ban"].as_i64().unwrap();

    // The other instance refuses the network within a few seconds: pages and sockets alike.
    let took = wait_for_status(two.addr, "/", BANNED, 403).await;
    assert!(took < Duration::from_secs(5), "{took:?}");
    let (status, page) = get_from(two.addr, &socket, BANNED).await;
    assert_eq!(status, 403);
    assert!(page.contains("Access refused"), "{page}");
    assert!(page.contains("flooding &lt;rooms&gt;"), "{page}");
    assert!(page.contains("<p lang=\"ru\">"), "{page}");
    wait_for_status(one.addr, &socket, BANNED, 403).await;
    assert_eq!(get_from(two.addr, &socket, OTHER).await.0, 101);
    assert_eq!(get_from(two.addr, "/healthz", BANNED).await.0, 200);

    let (code, listed, _) = admin(&url, &["bans"]).await;
    assert_eq!(code, 0);
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed[0]["id"], id);
    assert_eq!(listed[0]["created_by"], "alice");

    let id_text = id.to_string();
    let lift = [
        "lift",
        &id_text,
        "--reason",
        "appeal granted",
        "--as",
        "bob",
    ];
    let (code, _, stderr) = admin(&url, &lift).await;
    assert_eq!(code, 0, "{stderr}");
    wait_for_status(two.addr, &socket, BANNED, 101).await;
    let again = ["lift", &id_text, "--reason", "again", "--as", "bob"];
    let (code, _, stderr) = admin(&url, &again).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("no ban"), "{stderr}");
    assert_eq!(admin(&url, &["bans"]).await.1, serde_json::json!([]));

    let (code, audit, _) = admin(&url, &["audit"]).await;
    assert_eq!(code, 0);
    let entries: Vec<_> = audit
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            (
                entry["actor"].clone(),
                entry["action"].clone(),
                entry["reason"].clone(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("bob".into(), "lift".into(), "appeal granted".into()),
            ("alice".into(), "ban".into(), "flooding <rooms>".into()),
        ]
    );
    assert!(audit[0]["at"].as_i64().unwrap() >= audit[1]["at"].as_i64().unwrap());
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn a_ban_from_the_command_line_reaches_every_instance() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    bans_reach_every_instance(url).await;
}

#[tokio::test]
async fn bad_admin_input_gets_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("none.db").display());
    let (code, _, stderr) = admin(
        &url,
        &[
            "ban",
            "example.org",
            "--for",
            "1h",
            "--reason",
            "x",
            "--as",
            "a",
        ],
    )
    .await;
    assert_eq!(code, 2);
    assert!(stderr.contains("not an address or a network"), "{stderr}");
    let (code, _, stderr) = admin(
        &url,
        &[
            "ban",
            "10.0.0.0/8",
            "--for",
            "soon",
            "--reason",
            "x",
            "--as",
            "a",
        ],
    )
    .await;
    assert_eq!(code, 2);
    assert!(stderr.contains("24h"), "{stderr}");
    let (code, _, stderr) =
        admin(&url, &["ban", "10.0.0.0/8", "--for", "1h", "--reason", "x"]).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("--as"), "{stderr}");
}

/// How soon a player must hear of a game the operator ended: the news (PostgreSQL) or the
/// poll (SQLite, every 2 s) plus the catch-up.
const TOLD_WITHIN: Duration = Duration::from_secs(5);

/// The room's three connections hear the operator's end; returns the `game-over` each saw.
async fn told_of_the_end(clients: &mut [&mut Client]) -> Vec<Value> {
    let started = Instant::now();
    let mut ends = Vec::new();
    for client in clients.iter_mut() {
        ends.push(client.wait_for("game-over").await);
    }
    assert!(started.elapsed() < TOLD_WITHIN, "{:?}", started.elapsed());
    ends
}

async fn an_operator_ends_a_game_on_every_instance(url: String) {
    let one = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let two = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let created = create_room(one.addr, "online", "black").await;
    let room = created["room"].as_str().unwrap().to_string();
    let joined = join_room(two.addr, &room).await;
    let mut black = Client::join(one.addr, &room, created["token"].as_str()).await;
    let mut white = Client::join(two.addr, &room, joined["token"].as_str()).await;
    let mut watcher = Client::join(two.addr, &room, None).await;
    black.ok("roll", Value::Null).await;

    let waiting = create_room(one.addr, "online", "white").await["room"]
        .as_str()
        .unwrap()
        .to_string();
    let by = ["--reason", "cheating <b>", "--as", "carol"];
    let (code, _, stderr) = admin(&url, &[&["end", waiting.as_str()][..], &by].concat()).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("starts when both seats"), "{stderr}");
    let (code, _, stderr) = admin(&url, &[&["end", "00ff"][..], &by].concat()).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("no such room"), "{stderr}");

    let (code, ended, stderr) = admin(&url, &[&["end", room.as_str()][..], &by].concat()).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(ended["ended"], room.as_str());
    let v = ended["v"].clone();
    for end in told_of_the_end(&mut [&mut black, &mut white, &mut watcher]).await {
        assert_eq!(end["d"]["v"], v, "{end}");
        assert_eq!(end["d"]["winner"], "none", "{end}");
        assert_eq!(end["d"]["reason"], "operator", "{end}");
        assert_eq!(end["d"]["note"], "cheating <b>", "{end}");
        assert!(end["d"]["seed"].is_string(), "{end}");
    }
    black.refused("roll", Value::Null, "game_over").await;
    white.refused("rematch", Value::Null, "game_over").await;
    let result = white.sync().await["result"].clone();
    assert_eq!(
        result,
        serde_json::json!({"winner": "none", "reason": "operator", "note": "cheating <b>"})
    );
    let summary = http(one.addr, "GET", &format!("/api/rooms/{room}"), None)
        .await
        .1;
    assert_eq!(summary["result"], result, "{summary}");
    let record = record(two.addr, &room).await;
    // Presence may still be logged after the end (a player leaving); nothing else is.
    let events = record["events"].as_array().unwrap();
    let at_end = events.iter().find(|e| e["v"] == v).unwrap();
    assert_eq!(at_end["t"], "game-over", "{record}");
    let after: Vec<_> = events
        .iter()
        .filter(|e| e["v"].as_u64() > v.as_u64())
        .collect();
    assert!(after.iter().all(|e| e["t"] == "presence"), "{after:?}");
    verify_accepted(&record).await;

    let (code, _, stderr) = admin(&url, &[&["end", room.as_str()][..], &by].concat()).await;
    assert_eq!(code, 2);
    assert!(stderr.contains("the game is over"), "{stderr}");
    let (_, audit, _) = admin(&url, &["audit"]).await;
    assert_eq!(audit.as_array().unwrap().len(), 1, "{audit}");
    let entry = &audit[0];
    assert_eq!(
        (&entry["actor"], &entry["action"], &entry["target"]),
        (&"carol".into(), &"end".into(), &Value::from(room.as_str()))
    );
    assert_eq!(entry["reason"], "cheating <b>");
    let (_, live, _) = admin(&url, &["rooms"]).await;
    assert_eq!(live, serde_json::json!([]));
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn an_operator_ends_a_game_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    an_operator_ends_a_game_on_every_instance(url).await;
}

postgres_support::postgres_tests!(
    bans_reach_every_instance,
    an_operator_ends_a_game_on_every_instance,
    a_ban_closes_the_open_sockets_on_every_instance,
);

/// How soon an open socket of a banned client is closed (the bans are read every 2 s).
const BAN_REACHES_SOCKETS: Duration = Duration::from_secs(5);

/// Issue 44, item 2: the banned address's open sockets — a seated player's on one instance, a
/// spectator's on the other — are closed with 4003 within [`BAN_REACHES_SOCKETS`] of the ban
/// (before, they went on talking); another address's socket stays open and served.
async fn a_ban_closes_the_open_sockets_on_every_instance(url: String) {
    let trusting = |config: &mut senet::server::config::Config| {
        config.edge.trusted_proxies = "127.0.0.1".parse().unwrap();
    };
    let one = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), trusting).await;
    let two = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), trusting).await;
    let created = create_room(one.addr, "online", "black").await;
    let room = created["room"].as_str().unwrap().to_string();
    join_room(one.addr, &room).await;
    let player = Client::connect_from(one.addr, &room, None, Some(BANNED)).await;
    let mut player = player.hello(created["token"].as_str()).await;
    let mut watcher = Client::connect_from(two.addr, &room, None, Some(BANNED))
        .await
        .hello(None)
        .await;
    let mut other = Client::connect_from(two.addr, &room, None, Some(OTHER))
        .await
        .hello(None)
        .await;
    player
        .ok("chat", serde_json::json!({"preset": "hello"}))
        .await;

    let reason = ["--reason", "abusive chat", "--as", "alice"];
    let ban = [&["ban", BANNED, "--for", "1h"][..], &reason].concat();
    let (code, _, stderr) = admin(&url, &ban).await;
    assert_eq!(code, 0, "{stderr}");
    let banned = Instant::now();
    for client in [&mut player, &mut watcher] {
        let closed = tokio::time::timeout(BAN_REACHES_SOCKETS, client.closed())
            .await
            .expect("the banned client's socket is still open");
        assert_eq!(closed, Closed::Code(4003));
    }
    println!(
        "both banned sockets closed {:?} after the ban",
        banned.elapsed()
    );
    assert_eq!(other.sync().await["room"], room.as_str());
    one.stop().await;
    two.stop().await;
}

#[tokio::test]
async fn a_ban_closes_the_open_sockets_on_every_instance_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    a_ban_closes_the_open_sockets_on_every_instance(url).await;
}

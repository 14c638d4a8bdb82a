//! The restore drill: `senet backup` (the real binary) copies a real server's SQLite database
//! while games are being played on it; a fresh server started on the copy serves every game as
//! the copy has it: each finished game's record passes `senet verify`, and each game in
//! progress takes up from the copy's last event and is played to its end, which verifies too.

mod common;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use sqlx::{Connection, SqliteConnection};

/// A room's seats: (room, black token, white token).
type Seated = (String, String, String);

/// Both players of `seated`, connected.
async fn players(addr: std::net::SocketAddr, seated: &Seated) -> (Client, Client) {
    let black = Client::join(addr, &seated.0, Some(&seated.1)).await;
    let white = Client::join(addr, &seated.0, Some(&seated.2)).await;
    (black, white)
}

/// Plays whole turns until `stop`, or until the game ends by itself; counts the actions'
/// events in `committed`.
async fn play_until(
    addr: std::net::SocketAddr,
    seated: Seated,
    stop: Arc<AtomicBool>,
    committed: Arc<AtomicU64>,
) {
    let (mut black, mut white) = players(addr, &seated).await;
    while !stop.load(Ordering::Relaxed) {
        let state = black.sync().await;
        if state["phase"] == "over" {
            return;
        }
        let side = state["turn"].as_str().unwrap().to_string();
        let mover = if side == "black" {
            &mut black
        } else {
            &mut white
        };
        let events = play_turn(mover, &side).await;
        committed.fetch_add(events.len() as u64, Ordering::Relaxed);
    }
}

/// Every event of `room` in the SQLite file at `path`: (v, kind, data).
async fn stored_events(path: &Path, room: &str) -> Vec<(i64, String, String)> {
    let mut db = SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    sqlx::query_as("SELECT v, kind, data FROM events WHERE room = ? ORDER BY v")
        .bind(room)
        .fetch_all(&mut db)
        .await
        .unwrap()
}

async fn run_backup(database: &Path, to: &Path) -> Value {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .arg("backup")
        .arg("--database-url")
        .arg(format!("sqlite://{}", database.display()))
        .arg("--to")
        .arg(to)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "senet backup failed: {stderr}");
    serde_json::from_slice(&output.stdout).unwrap()
}

#[tokio::test]
async fn a_backup_taken_under_load_restores_every_game() {
    let server = TestServer::start().await;
    let database = server.dir.path().join("senet.db");

    // Two games finished before the backup.
    let mut finished = Vec::new();
    for _ in 0..2 {
        let seated = seated_room(server.addr).await;
        let (mut black, _white) = players(server.addr, &seated).await;
        play_turn(&mut black, "black").await;
        black.ok("resign", Value::Null).await;
        finished.push(seated.0);
    }
    // Four games played turn after turn while the backup runs.
    let stop = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicU64::new(0));
    let mut playing = Vec::new();
    let mut load = Vec::new();
    for _ in 0..4 {
        let seated = seated_room(server.addr).await;
        playing.push(seated.clone());
        load.push(tokio::spawn(play_until(
            server.addr,
            seated,
            stop.clone(),
            committed.clone(),
        )));
    }
    while committed.load(Ordering::Relaxed) < 40 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let backups = tempfile::tempdir().unwrap();
    let copy = backups.path().join("senet-backup.db");
    let before = committed.load(Ordering::Relaxed);
    let report = run_backup(&database, &copy).await;
    let during = committed.load(Ordering::Relaxed) - before;
    // The load goes on after the copy, so the copy is behind the live database.
    while committed.load(Ordering::Relaxed) < before + during + 40 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for task in load {
        task.await.unwrap();
    }
    assert_eq!(report["to"], json!(copy.display().to_string()));
    assert_eq!(report["rooms"], 6, "{report}");
    assert!(report["bytes"].as_u64().unwrap() > 0, "{report}");
    // A second backup to the same file is refused: a backup never overwrites one.
    let again = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["backup", "--database-url"])
        .arg(format!("sqlite://{}", database.display()))
        .arg("--to")
        .arg(&copy)
        .output()
        .await
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));

    // The copy is a snapshot: each room's log in it is a prefix of the live one, cut between
    // commits, and the copy lags the live database for the games that went on.
    let mut copied_total = 0;
    let mut behind = 0;
    let mut copy_last_v = Vec::new();
    for seated in &playing {
        let copied = stored_events(&copy, &seated.0).await;
        let live = stored_events(&database, &seated.0).await;
        assert!(!copied.is_empty());
        assert_eq!(copied[..], live[..copied.len()], "room {}", seated.0);
        copied_total += copied.len();
        behind += live.len() - copied.len();
        copy_last_v.push(copied.last().unwrap().0);
    }
    assert!(behind > 0, "the copy holds every event played after it");
    let reported = report["events"].as_u64().unwrap() as usize;
    assert!(
        reported >= copied_total,
        "{report}: {copied_total} events in the playing rooms"
    );
    server.stop().await;

    // A fresh server on the copy.
    let restored_dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", copy.display());
    let restored = TestServer::start_on(restored_dir, url, |_| {}).await;
    for room in &finished {
        let record = record(restored.addr, room).await;
        verify_accepted(&record).await;
    }
    for (seated, last_v) in playing.iter().zip(copy_last_v) {
        let (mut black, mut white) = players(restored.addr, seated).await;
        let state = black.sync().await;
        // Joining may add presence events after the copy's last one, nothing else.
        assert!(state["v"].as_i64().unwrap() >= last_v, "{state}");
        let since: Vec<_> = stored_events(&copy, &seated.0)
            .await
            .into_iter()
            .filter(|(v, _, _)| *v > last_v)
            .map(|(_, kind, _)| kind)
            .collect();
        assert!(since.iter().all(|kind| kind == "presence"), "{since:?}");
        if state["phase"] != "over" {
            let side = state["turn"].as_str().unwrap().to_string();
            let mover = if side == "black" {
                &mut black
            } else {
                &mut white
            };
            // The copy may have been taken between a throw and its move: move first.
            let mut events = Vec::new();
            if let Some(legal) = state["legal"].as_array().and_then(|l| l.first()) {
                events.extend(mover.ok("move", json!({"from": legal["from"]})).await);
            }
            if mover.sync().await["phase"] != "over" {
                events.extend(play_turn(mover, &side).await);
            }
            assert!(events[0]["d"]["v"].as_i64().unwrap() > last_v, "{events:?}");
            if black.sync().await["phase"] != "over" {
                black.ok("resign", Value::Null).await;
            }
        }
        let record = record(restored.addr, &seated.0).await;
        verify_accepted(&record).await;
    }
    restored.stop().await;
}

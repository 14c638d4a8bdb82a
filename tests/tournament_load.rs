//! `senet loadgen --tournament` over a real server (issue 45, item 7): a Swiss of 8 bots and 3
//! rounds, played unpaced to its end on SQLite and PostgreSQL. The report must count every
//! game, time every game's end to the standings counting it and every round's turnaround,
//! with no error; `senet tournament verify` must pass on the database and every game's record
//! must verify (`senet verify`'s checks).

mod common;
mod postgres_support;

use std::process::Command;
use std::time::Duration;

use common::{TestServer, record, verify_accepted};
use senet::loadgen::http::BaseUrl;
use senet::loadgen::{self, TournamentFormat, TournamentLoad};
use senet::protocol::TimeControl;
use serde_json::Value;

const BOTS: usize = 8;
const ROUNDS: u32 = 3;

async fn a_swiss_of_8_bots_is_played_measured_and_verifies(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_on(dir, url.clone(), |config| {
        config.min_clock_initial = 1;
    })
    .await;
    let load = TournamentLoad {
        format: TournamentFormat::Swiss,
        players: BOTS,
        minutes: 10,
        rounds: ROUNDS,
        clock: TimeControl::fischer(60, 1),
        rated: false,
        start_in: Duration::from_secs(3),
        stop_after: Some(Duration::from_secs(120)),
        per_connection_rate: None,
        source_addresses: 1,
        connect_concurrency: 8,
        server_pid: Some(std::process::id()),
    };
    let base = BaseUrl::parse(&format!("http://{}", server.addr)).unwrap();
    let report = loadgen::run_tournament(base, &load).await;
    assert_eq!(report.errors, 0, "{:?}", report.error_kinds);
    assert_eq!(report.status, "finished");
    assert_eq!(report.players, BOTS);
    let games = BOTS * ROUNDS as usize / 2;
    assert_eq!((report.games, report.games_finished), (games, games));
    assert_eq!(report.game_ends_seen, 2 * games as u64);
    assert_eq!(report.games_lost, 0);
    // Every game's end reached its two players' standings; rounds 2 and 3 followed a game's
    // end (the last round's ends are followed by no pairing).
    assert_eq!(report.end_to_standings_samples, 2 * games);
    assert_eq!(report.end_to_pairing_samples, 2 * games - BOTS);
    let rounds: Vec<u32> = report.round_turnaround_ms.keys().copied().collect();
    assert_eq!(rounds, [2, 3]);
    let standings = report.end_to_standings.expect("timed");
    assert!(standings.p50_ms <= standings.max_ms, "{standings:?}");
    assert!(report.server_cpu_seconds.is_some_and(|cpu| cpu > 0.0));

    let id = report.tournament.clone().expect("created");
    let output = Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["tournament", "verify", "--database-url", &url, "--id", &id])
        .output()
        .unwrap();
    let verdict: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(output.status.code(), Some(0), "{verdict}");
    assert_eq!(verdict["pairing_cpu_ms"]["pairings"], ROUNDS);
    for room in &report.rooms {
        verify_accepted(&record(server.addr, room).await).await;
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_swiss_of_8_bots_is_played_measured_and_verifies() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    a_swiss_of_8_bots_is_played_measured_and_verifies(url).await;
}

postgres_support::postgres_tests!(a_swiss_of_8_bots_is_played_measured_and_verifies);

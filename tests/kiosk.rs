//! `senet serve --kiosk` (issue 50 item 4): the home page `/` is the museum kiosk, `/kiosk` is
//! it on any server, and the other pages still answer; the flag and `SENET_KIOSK` parse. The
//! kiosk itself (its screens, the idle reset) is driven in Chromium by e2e/tests/kiosk.spec.js.

mod common;

use std::net::SocketAddr;

use clap::Parser;
use common::TestServer;
use senet::server::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// `GET path` as a browser asks for a page: (status line, body).
async fn get_page(addr: SocketAddr, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_owned(), body.to_owned())
}

const KIOSK_MARK: &str = "/js/kiosk.js\"></script>";
const HOME_MARK: &str = "/js/home.js\"></script>";

#[tokio::test]
async fn with_kiosk_the_home_page_is_the_kiosk_and_the_other_pages_still_answer() {
    let server = TestServer::start_with(|config| config.kiosk = true).await;
    let (status, home) = get_page(server.addr, "/").await;
    assert!(status.contains(" 200 "), "{status}");
    assert!(home.contains(KIOSK_MARK) && !home.contains(HOME_MARK));
    // The game is the room page's own parts, once.
    assert_eq!(home.matches("data-testid=\"room\"").count(), 1);
    assert_eq!(home.matches("data-testid=\"kiosk-attract\"").count(), 1);
    for path in ["/kiosk", "/learn", "/settings"] {
        let (status, _) = get_page(server.addr, path).await;
        assert!(status.contains(" 200 "), "{path}: {status}");
    }
    server.stop().await;
}

#[tokio::test]
async fn without_kiosk_the_home_page_is_the_lobby_and_the_kiosk_is_at_its_address() {
    let server = TestServer::start().await;
    let (_, home) = get_page(server.addr, "/").await;
    assert!(home.contains(HOME_MARK) && !home.contains(KIOSK_MARK));
    let (status, kiosk) = get_page(server.addr, "/kiosk").await;
    assert!(status.contains(" 200 "), "{status}");
    assert!(kiosk.contains(KIOSK_MARK));
    server.stop().await;
}

#[derive(Parser)]
struct Serve {
    #[command(flatten)]
    config: Config,
}

#[test]
fn the_flag_parses() {
    assert!(
        Serve::try_parse_from(["serve", "--kiosk"])
            .unwrap()
            .config
            .kiosk
    );
}

/// The kiosk's systemd unit (deploy/kiosk/senet-kiosk.service): its `Environment=` lines.
fn unit_environment() -> Vec<(String, String)> {
    let unit = include_str!("../deploy/kiosk/senet-kiosk.service");
    unit.lines()
        .filter_map(|line| line.strip_prefix("Environment="))
        .map(|pair| {
            let (name, value) = pair.split_once('=').expect("NAME=value");
            (name.to_owned(), value.to_owned())
        })
        .collect()
}

/// Every variable the unit sets is one `senet serve` reads (a misspelt name would be ignored
/// without a word), and the kiosk is among them.
#[test]
fn the_kiosk_unit_sets_only_variables_the_server_reads() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    let environment = unit_environment();
    assert!(environment.contains(&("SENET_KIOSK".into(), "true".into())));
    for (name, _) in environment {
        assert!(
            help.contains(&format!("[env: {name}=")),
            "{name} is not read by senet serve"
        );
    }
}

/// The real binary, as the kiosk's systemd unit starts it (its environment, with a free port and
/// a temporary database in place of the kiosk computer's), and the browser unit's wait for it.
#[tokio::test]
async fn the_binary_started_as_the_kiosk_unit_starts_it_serves_the_kiosk() {
    use tokio::io::AsyncBufReadExt;
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite://{}", dir.path().join("senet.db").display());
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .arg("serve")
        .envs(unit_environment())
        .env("SENET_LISTEN", "127.0.0.1:0")
        .env("SENET_METRICS_LISTEN", "127.0.0.1:0")
        .env("DATABASE_URL", &database)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = tokio::time::timeout(common::PATIENCE, lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .expect("the server printed its address");
        if let Some(address) = line.strip_prefix("listening on http://") {
            break address.trim().parse::<SocketAddr>().unwrap();
        }
    };
    let (_, home) = get_page(addr, "/").await;
    assert!(home.contains(KIOSK_MARK), "{home}");
    let healthy = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["healthcheck", "--url", &format!("http://{addr}")])
        .status()
        .await
        .unwrap();
    assert!(
        healthy.success(),
        "the browser unit's ExecStartPre would wait for ever"
    );
    child.kill().await.unwrap();
}

/// `--forget-local-games-after`: a one-screen game nobody has touched for that long is deleted
/// (a kiosk's games, which nobody comes back to), an online game of the same age is kept; under
/// `--kiosk` the default is 30 days.
#[tokio::test]
async fn forgotten_local_games_are_deleted_and_online_games_kept() {
    let server = TestServer::start_with(|config| {
        config.forget_local_games_after = Some(std::time::Duration::from_secs(1));
    })
    .await;
    let (local, mut client) = common::local_client(server.addr).await;
    client.act("roll", serde_json::json!({})).await;
    drop(client);
    let online = common::create_room(server.addr, "online", "black").await;
    let online = online["room"].as_str().unwrap().to_owned();
    common::join_room(server.addr, &online).await;
    let local_path = format!("/api/rooms/{local}");
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    while common::http(server.addr, "GET", &local_path, None).await.0 != 404 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the local game is still there"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (status, _) = common::http(server.addr, "GET", &format!("/api/rooms/{online}"), None).await;
    assert_eq!(status, 200, "the online game is kept");
    server.stop().await;

    let kiosk = Serve::try_parse_from(["serve", "--kiosk"]).unwrap().config;
    assert_eq!(
        kiosk.room_config().forget_local_after,
        Some(senet::server::config::KIOSK_FORGETS_AFTER)
    );
    let plain = Serve::try_parse_from(["serve"]).unwrap().config;
    assert_eq!(plain.room_config().forget_local_after, None);
}

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

/// The real binary, as a kiosk's systemd unit or container starts it: `SENET_KIOSK=true`.
#[tokio::test]
async fn senet_kiosk_in_the_environment_makes_the_binary_serve_the_kiosk() {
    use tokio::io::AsyncBufReadExt;
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite://{}", dir.path().join("senet.db").display());
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--metrics-listen",
            "127.0.0.1:0",
        ])
        .args(["--database-url", &database])
        .env("SENET_KIOSK", "true")
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
    child.kill().await.unwrap();
}

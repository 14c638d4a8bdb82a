//! Operating the server, end to end on real sockets and real SQLite files: the origin check,
//! the connection caps, dropping a client that stops reading, `/metrics`, `/readyz`, `senet healthcheck`, JSON logs carrying the
//! room id, a restart on SIGTERM that players come back from, a shutdown bounded by its grace,
//! and a small load run.

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::*;
use senet::loadgen;
use senet::loadgen::http::BaseUrl;
use senet::telemetry;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// The HTTP status of a WebSocket handshake to `room` (101 when it opens), sent with `origin`.
async fn handshake_status(addr: SocketAddr, room: &str, origin: Option<&str>) -> u16 {
    let mut request = format!("ws://{addr}/ws/rooms/{room}")
        .into_client_request()
        .unwrap();
    if let Some(origin) = origin {
        request
            .headers_mut()
            .insert("origin", origin.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((_socket, response)) => response.status().as_u16(),
        Err(tungstenite::Error::Http(response)) => response.status().as_u16(),
        Err(other) => panic!("handshake failed: {other}"),
    }
}

#[tokio::test]
async fn websockets_from_another_sites_pages_are_refused_with_403() {
    let server = TestServer::start().await;
    let (room, _, _) = seated_room(server.addr).await;
    let own = format!("http://{}", server.addr);
    assert_eq!(handshake_status(server.addr, &room, Some(&own)).await, 101);
    assert_eq!(handshake_status(server.addr, &room, None).await, 101);
    let evil = Some("https://evil.example");
    assert_eq!(handshake_status(server.addr, &room, evil).await, 403);

    let listed = TestServer::start_with(|config| {
        config.connections.allowed_origins = "https://evil.example".parse().unwrap();
    })
    .await;
    let (room, _, _) = seated_room(listed.addr).await;
    assert_eq!(handshake_status(listed.addr, &room, evil).await, 101);
    let other = Some("https://other.example");
    assert_eq!(handshake_status(listed.addr, &room, other).await, 403);
}

#[tokio::test]
async fn connections_past_a_cap_get_429_until_one_closes() {
    let server = TestServer::start_with(|config| {
        config.connections.max_connections = 3;
        config.connections.max_connections_per_address = 0;
    })
    .await;
    let (room, black, white) = seated_room(server.addr).await;
    let first = Client::join(server.addr, &room, Some(&black)).await;
    let _second = Client::join(server.addr, &room, Some(&white)).await;
    let _watcher = Client::join(server.addr, &room, None).await;
    assert_eq!(handshake_status(server.addr, &room, None).await, 429);
    first.close().await;
    wait_until_status(server.addr, &room, 101).await;

    let per_address = TestServer::start_with(|config| {
        config.connections.max_connections_per_address = 2;
    })
    .await;
    let (room, black, white) = seated_room(per_address.addr).await;
    let _black = Client::join(per_address.addr, &room, Some(&black)).await;
    let _white = Client::join(per_address.addr, &room, Some(&white)).await;
    assert_eq!(handshake_status(per_address.addr, &room, None).await, 429);
}

/// A client that stops reading is dropped once what the server sends it has filled the socket
/// and waited `--ws-send-timeout`: its place under the connection cap comes free.
#[tokio::test]
async fn a_client_that_stops_reading_is_dropped() {
    let server = TestServer::start_with(|config| {
        config.connections.max_connections = 1;
        config.connections.max_connections_per_address = 0;
        config.connections.ws_send_timeout = 1;
        // Only the send timeout may end this connection, not the message rate.
        config.max_messages_per_second = 1_000_000;
    })
    .await;
    let (room, _, _) = seated_room(server.addr).await;
    let stalled = stalled_watcher(server.addr, &room).await;
    assert_eq!(handshake_status(server.addr, &room, None).await, 429);
    wait_until_status(server.addr, &room, 101).await;
    stalled.abort();
}

/// A watcher on a socket with a small receive buffer that asks for the room's state over and
/// over and never reads an answer; runs until the server stops reading it in turn.
async fn stalled_watcher(addr: SocketAddr, room: &str) -> tokio::task::JoinHandle<()> {
    use futures_util::SinkExt;
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let url = format!("ws://{addr}/ws/rooms/{room}");
    let (mut ws, _) = tokio_tungstenite::client_async(url, stream).await.unwrap();
    tokio::spawn(async move {
        let hello = json!({"t": "hello", "d": {}}).to_string();
        let sync = json!({"t": "sync"}).to_string();
        let sends = std::iter::once(hello).chain(std::iter::repeat(sync));
        for text in sends {
            // Ends once the server has dropped the connection (and never earlier: the socket
            // stays open until then).
            if ws.send(tungstenite::Message::text(text)).await.is_err() {
                return;
            }
        }
    })
}

/// Retries a handshake until it answers `status` (a closed connection frees its place once
/// the server has seen the close).
async fn wait_until_status(addr: SocketAddr, room: &str, status: u16) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while handshake_status(addr, room, None).await != status {
        assert!(tokio::time::Instant::now() < deadline, "still not {status}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn metrics_name_every_series_after_some_play() {
    let server = TestServer::start().await;
    let (room, black, white) = seated_room(server.addr).await;
    let mut black = Client::join(server.addr, &room, Some(&black)).await;
    let _white = Client::join(server.addr, &room, Some(&white)).await;
    black
        .refused("move", json!({"from": 10}), "must_roll")
        .await;
    black.ok("roll", Value::Null).await;
    black.ok("resign", Value::Null).await;

    let text = metrics_text(server.metrics_addr).await;
    for name in [
        telemetry::CONNECTIONS_OPEN,
        telemetry::ROOMS_IN_MEMORY,
        telemetry::GAMES_STARTED,
        telemetry::GAMES_FINISHED,
        telemetry::ACTIONS,
        telemetry::ERRORS,
        telemetry::ACTION_LATENCY,
        telemetry::DB_APPEND_LATENCY,
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
    for series in [
        r#"senet_actions_total{type="roll"}"#,
        r#"senet_errors_total{code="must_roll"}"#,
        r#"senet_games_started_total{mode="online"}"#,
        r#"senet_games_finished_total{mode="online",result="white",reason="resign"}"#,
        "senet_action_latency_seconds_bucket{le=\"0.001\"}",
    ] {
        assert!(text.contains(series), "{series} missing from:\n{text}");
    }
    // Tests in this binary share the process's recorder, so the gauge counts their sockets
    // too: at least our two are open.
    let open = gauge(&text, telemetry::CONNECTIONS_OPEN);
    assert!(open >= 2.0, "{open}");
}

/// The operators' files that name metrics: the Grafana dashboard and the Prometheus alert rules.
const OPERATOR_FILES: [&str; 2] = ["deploy/grafana/senet.json", "deploy/prometheus/alerts.yml"];

/// Every metric name in `text`: our series are all `senet_*`, plus the process's
/// `process_resident_memory_bytes`. (The rules also use `up`, which Prometheus makes itself
/// for every target it scrapes.)
fn metric_names(text: &str) -> std::collections::BTreeSet<String> {
    let is_name_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_';
    let mut names = std::collections::BTreeSet::new();
    for prefix in ["senet_", "process_"] {
        for (at, _) in text.match_indices(prefix) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| is_name_char(c) || c.is_ascii_uppercase()) {
                continue;
            }
            let rest = &text[at..];
            let end = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
            names.insert(rest[..end].to_string());
        }
    }
    names
}

/// Whether a scrape exports `name`: a sample of it (`name{...} v` or `name v`), or a family
/// of that name (a histogram's `# TYPE name histogram`, whose samples are `name_bucket`...).
fn exports(scrape: &str, name: &str) -> bool {
    scrape.lines().any(|line| {
        let sample = line
            .strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '));
        let family = line
            .strip_prefix("# TYPE ")
            .and_then(|rest| rest.strip_prefix(name))
            .is_some_and(|rest| rest.starts_with(' '));
        sample || family
    })
}

#[tokio::test]
async fn every_metric_the_dashboard_and_the_alert_rules_name_is_exported() {
    let server = TestServer::start().await;
    let (room, black, white) = seated_room(server.addr).await;
    let mut black = Client::join(server.addr, &room, Some(&black)).await;
    let _white = Client::join(server.addr, &room, Some(&white)).await;
    black
        .refused("move", json!({"from": 10}), "must_roll")
        .await;
    black.ok("roll", Value::Null).await;
    black.ok("resign", Value::Null).await;
    let seek =
        json!({"side": "black", "clock": {"initial": 180, "increment": 2}, "visitor": "ann"});
    let (status, posted) = http(server.addr, "POST", "/api/seeks", Some(seek)).await;
    assert_eq!(status, 201, "{posted}");

    let scrape = metrics_text(server.metrics_addr).await;
    let manifest = env!("CARGO_MANIFEST_DIR");
    let mut named = std::collections::BTreeSet::new();
    for file in OPERATOR_FILES {
        let text = std::fs::read_to_string(format!("{manifest}/{file}")).unwrap();
        let names = metric_names(&text);
        assert!(names.len() >= 5, "{file} names only {names:?}");
        named.extend(names);
    }
    let missing: Vec<_> = named
        .iter()
        .filter(|name| !exports(&scrape, name))
        .collect();
    assert!(
        missing.is_empty(),
        "not exported: {missing:?}\nscrape:\n{scrape}"
    );
    assert_eq!(gauge(&scrape, telemetry::READY), 1.0);
    let memory = gauge(&scrape, telemetry::RESIDENT_MEMORY);
    let limit = gauge(&scrape, telemetry::MEMORY_LIMIT);
    assert!(memory > 1e6 && memory < limit, "{memory} of {limit}");
}

#[test]
fn metric_names_are_read_whole_and_only_where_they_start() {
    let text = r#"expr: rate(senet_actions_total{x="y"}[5m]) / process_resident_memory_bytes
        "desc": "see SENET_MAX_ROOMS and my_senet_thing, senet_ready."#;
    let names: Vec<_> = metric_names(text).into_iter().collect();
    assert_eq!(
        names,
        [
            "process_resident_memory_bytes",
            "senet_actions_total",
            "senet_ready"
        ]
    );
    let scrape =
        "# TYPE senet_a_seconds histogram\nsenet_a_seconds_bucket{le=\"1\"} 1\nsenet_b 0\n";
    assert!(exports(scrape, "senet_a_seconds"));
    assert!(exports(scrape, "senet_a_seconds_bucket"));
    assert!(exports(scrape, "senet_b"));
    assert!(!exports(scrape, "senet_a"));
    assert!(!exports(scrape, "senet_c"));
}

fn gauge(text: &str, name: &str) -> f64 {
    text.lines()
        .find_map(|line| line.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in:\n{text}"))
}

#[tokio::test]
async fn readyz_needs_a_migrated_database() {
    let server = TestServer::start().await;
    let (status, body) = http(server.addr, "GET", "/readyz", None).await;
    assert_eq!((status, body), (200, json!({"status": "ready"})));

    // Roll the database back under the running server: it must stop saying it is ready.
    let database = server.dir.path().join("senet.db");
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", database.display()))
        .await
        .unwrap();
    sqlx::query("DELETE FROM _sqlx_migrations")
        .execute(&pool)
        .await
        .unwrap();
    let (status, body) = http(server.addr, "GET", "/readyz", None).await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], "not_ready");
}

/// `senet healthcheck` with these arguments and environment: its exit code.
async fn healthcheck(args: &[&str], env: &[(&str, &str)]) -> i32 {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .arg("healthcheck")
        .args(args)
        .env_remove("SENET_HEALTHCHECK_URL")
        .env_remove("SENET_LISTEN")
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    output.status.code().unwrap()
}

#[tokio::test]
async fn healthcheck_exits_0_for_a_live_server_and_1_otherwise() {
    let server = TestServer::start().await;
    let url = format!("http://{}", server.addr);
    assert_eq!(healthcheck(&["--url", &url], &[]).await, 0);
    assert_eq!(
        healthcheck(&[], &[("SENET_HEALTHCHECK_URL", &url)]).await,
        0
    );
    let wildcard = format!("0.0.0.0:{}", server.addr.port());
    assert_eq!(healthcheck(&[], &[("SENET_LISTEN", &wildcard)]).await, 0);

    // Nothing listening: refused at once.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_url = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    assert_eq!(healthcheck(&["--url", &closed_url], &[]).await, 1);

    // Something that accepts but never answers: given up on after two seconds.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let silent_url = format!("http://{}", silent.local_addr().unwrap());
    let started = std::time::Instant::now();
    assert_eq!(healthcheck(&["--url", &silent_url], &[]).await, 1);
    assert!(started.elapsed() < Duration::from_secs(5));

    // Something that answers, but not 200.
    let unwell = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let unwell_url = format!("http://{}", unwell.local_addr().unwrap());
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (mut stream, _) = unwell.accept().await.unwrap();
        let mut request = [0; 1024];
        let _ = stream.read(&mut request).await;
        let answer = "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\n\r\n";
        stream.write_all(answer.as_bytes()).await.unwrap();
    });
    assert_eq!(healthcheck(&["--url", &unwell_url], &[]).await, 1);
}

#[tokio::test]
async fn sigterm_closes_with_1012_and_players_resume_after_the_restart() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("senet.db");
    let server = ChildServer::start(&database, &["--log-format", "json"]).await;
    let (room, black_token, white_token) = seated_room(server.addr).await;
    let mut black = Client::join(server.addr, &room, Some(&black_token)).await;
    let mut white = Client::join(server.addr, &room, Some(&white_token)).await;
    black.ok("roll", Value::Null).await;
    let before = black.sync().await;

    let status = server.terminate().await;
    assert!(status.success(), "{status}");
    assert_eq!(black.closed().await, Closed::Code(1012));
    assert_eq!(white.closed().await, Closed::Code(1012));

    let server = ChildServer::start(&database, &["--log-format", "json"]).await;
    let mut black = Client::join(server.addr, &room, Some(&black_token)).await;
    let _white = Client::join(server.addr, &room, Some(&white_token)).await;
    assert_eq!(black.state["position"], before["position"]);
    assert_eq!(black.state["throw"], before["throw"]);
    // The throw survived the restart: the same side moves with it.
    let after = black.sync().await;
    assert_eq!(after["phase"], before["phase"]);
    assert_eq!(after["legal"], before["legal"]);
    match before["legal"].as_array().unwrap().first() {
        Some(legal) => black.ok("move", json!({"from": legal["from"]})).await,
        None => black.ok("roll", Value::Null).await,
    };
    server.terminate().await;

    // Every log line is JSON; the room's lines carry its id; no token was logged.
    let log = std::fs::read_to_string(database.with_extension("log")).unwrap();
    let lines: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|_| panic!("not JSON: {line}")))
        .collect();
    assert!(
        lines
            .iter()
            .any(|line| line["span"]["room"] == room.as_str())
    );
    assert!(!log.contains(&black_token) && !log.contains(&white_token));
}

/// A client that sends half a request and waits: hyper's graceful close waits for that
/// request (up to the header timeout, an hour here), the grace does not.
#[tokio::test]
async fn sigterm_exits_within_the_grace_while_a_request_hangs_half_sent() {
    use tokio::io::AsyncWriteExt;
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("senet.db");
    let server = ChildServer::start(
        &database,
        &["--header-read-timeout", "3600", "--shutdown-grace", "1"],
    )
    .await;
    let mut hanging = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    hanging
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: senet\r\n")
        .await
        .unwrap();
    // The connection is accepted and its headers are being read before the signal.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let started = std::time::Instant::now();
    let status = server.terminate().await;
    assert!(status.success(), "{status}");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "exited after {took:?}");
    let log = std::fs::read_to_string(database.with_extension("log")).unwrap();
    assert!(log.contains("shutdown grace is over"), "{log}");
}

#[tokio::test]
async fn a_small_load_run_answers_every_action_without_errors() {
    let server = TestServer::start_with(|config| {
        config.connections.max_connections_per_address = 0;
    })
    .await;
    let base = BaseUrl::parse(&format!("http://{}", server.addr)).unwrap();
    let config = loadgen::Config {
        rooms: 150,
        rate: None,
        per_connection_rate: Some(18.0),
        duration: Duration::from_secs(3),
        idle: false,
        connect_concurrency: 32,
        server_pid: Some(std::process::id()),
        source_addresses: 1,
        split_players: false,
        reconnect: false,
        rated: false,
        // Timed games: every turn also carries both clocks and moves the room's timer.
        clock: Some(senet::protocol::TimeControl::fischer(600, 5)),
    };
    let report = loadgen::run_server(vec![base], &config).await;
    assert_eq!(report.errors, 0, "{:?}", report.error_kinds);
    assert_eq!((report.rooms, report.connections), (150, 300));
    assert!(report.actions_sent > 300, "{}", report.actions_sent);
    assert_eq!(report.actions_answered, report.actions_sent);
    assert!(report.events_received >= report.actions_answered);
    let latency = report.latency.expect("answered actions were timed");
    assert!(latency.p50_ms <= latency.p99_ms && latency.p99_ms <= latency.max_ms);
    assert!(report.server_rss_mib.is_some());
    assert!(report.server_cpu_seconds.is_some_and(|cpu| cpu > 0.0));
    assert!(report.server_context_switches.is_some());
}

/// Each room's players come from a loopback address of their own, so a per-address cap of one
/// room's two sockets holds every room open.
#[tokio::test]
async fn a_load_run_spread_over_source_addresses_passes_a_per_address_cap() {
    let rooms = 12;
    let server = TestServer::start_with(|config| {
        config.connections.max_connections_per_address = 2;
    })
    .await;
    let base = BaseUrl::parse(&format!("http://{}", server.addr)).unwrap();
    let config = loadgen::Config {
        rooms,
        rate: Some(50.0),
        per_connection_rate: Some(18.0),
        duration: Duration::from_secs(1),
        idle: false,
        connect_concurrency: 4,
        server_pid: None,
        source_addresses: rooms as u32,
        split_players: false,
        reconnect: false,
        rated: false,
        clock: None,
    };
    let report = loadgen::run_server(vec![base.clone()], &config).await;
    assert_eq!(report.errors, 0, "{:?}", report.error_kinds);
    assert_eq!(
        (report.rooms, report.connections),
        (rooms as u64, 2 * rooms as u64)
    );

    // From one address, the same rooms run into the cap: the check above could fail.
    let crowded = loadgen::run_server(
        vec![base],
        &loadgen::Config {
            source_addresses: 1,
            ..config
        },
    )
    .await;
    assert!(crowded.errors > 0, "{crowded:?}");
}

/// Fails on the code before issue 28's item 6 (an empty `--public-origin` was the default
/// everywhere): beyond loopback the server does not start without it, and says why.
#[tokio::test]
async fn listening_beyond_loopback_requires_the_public_origin() {
    let dir = tempfile::tempdir().unwrap();
    let database = format!("sqlite://{}", dir.path().join("senet.db").display());
    let serve = |extra: &[&str]| {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"));
        command
            .args([
                "serve",
                "--listen",
                "0.0.0.0:0",
                "--metrics-listen",
                "127.0.0.1:0",
            ])
            .args(["--database-url", &database])
            .args(extra)
            .env_remove("SENET_PUBLIC_ORIGIN")
            .kill_on_drop(true);
        command
    };
    let refused = tokio::time::timeout(PATIENCE, serve(&[]).output())
        .await
        .expect("the server refuses to start at once")
        .unwrap();
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("--public-origin") && said.contains("0.0.0.0"),
        "{said}"
    );

    let mut started = serve(&["--public-origin", "https://senet.example"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(started.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(PATIENCE, lines.next_line()).await;
    let line = line.expect("it starts").unwrap().unwrap();
    assert!(line.starts_with("listening on http://0.0.0.0:"), "{line}");
    started.kill().await.unwrap();
}

/// The compose file believes `X-Forwarded-For` from nginx's fixed address alone (not the whole
/// network, whose gateway any host process can send from), and names its public origin. Fails
/// on the compose file before issue 28 (it trusted 172.28.0.0/16).
#[test]
fn the_compose_file_trusts_only_nginx_and_names_its_public_origin() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/docker-compose.yml");
    let text = std::fs::read_to_string(path).unwrap();
    let values = |text: &str, key: &str| -> Vec<String> {
        let lines = text.lines().map(str::trim);
        let values = lines.filter_map(|line| line.strip_prefix(key));
        values.map(|value| value.trim().to_string()).collect()
    };
    // The instances have fixed addresses too: nginx's is the first after its service's name.
    let nginx_service = &text[text.find("\n  nginx:").expect("an nginx service")..];
    let nginx = values(nginx_service, "ipv4_address:")[..1].to_vec();
    assert_eq!(values(&text, "SENET_TRUSTED_PROXIES:"), nginx);
    nginx[0]
        .parse::<std::net::IpAddr>()
        .expect("one address, not a network");
    let origin = values(&text, "SENET_PUBLIC_ORIGIN:");
    assert!(origin.iter().all(|o| o.starts_with("http")) && !origin.is_empty());
}

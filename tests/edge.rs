//! The edge against hostile clients, over real sockets: idle and slow connections are cut off,
//! the TCP connection caps hold for plain HTTP, and slow requests time out. A listener whose
//! address is taken says which it is and how to move it (issue 44).

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use common::TestServer;
use senet::server::config::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const GET_HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nhost: senet.test\r\n\r\n";

/// A TCP connection from `source` (any 127.x.y.z address is this machine's).
async fn connect_from(source: &str, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(format!("{source}:0").parse().unwrap()).unwrap();
    socket.connect(server).await.unwrap()
}

/// Reads until the peer closes (or fails), at most `within`: what was read, or None if the
/// connection was still open by then.
async fn read_to_close(stream: &mut TcpStream, within: Duration) -> Option<String> {
    let mut read = Vec::new();
    let closed = tokio::time::timeout(within, async {
        let mut buf = [0u8; 1024];
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => read.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    closed
        .ok()
        .map(|()| String::from_utf8_lossy(&read).into_owned())
}

/// Sends one request and reads its answer's status line, keeping the connection open.
async fn status_of(stream: &mut TcpStream, request: &[u8]) -> String {
    stream.write_all(request).await.unwrap();
    let mut buf = [0u8; 4096];
    let n = tokio::time::timeout(common::PATIENCE, stream.read(&mut buf))
        .await
        .expect("an answer")
        .unwrap();
    let answer = String::from_utf8_lossy(&buf[..n]).into_owned();
    answer.lines().next().unwrap_or_default().to_owned()
}

/// A connection is admitted (counted) once it has been answered.
async fn admitted(source: &str, server: SocketAddr) -> TcpStream {
    let mut stream = connect_from(source, server).await;
    assert_eq!(status_of(&mut stream, GET_HEALTHZ).await, "HTTP/1.1 200 OK");
    stream
}

/// A connection that gets no service: answered `status` and closed, or closed outright.
async fn assert_refused(source: &str, server: SocketAddr, status: &str) {
    let mut stream = connect_from(source, server).await;
    let _ = stream.write_all(GET_HEALTHZ).await;
    let answer = read_to_close(&mut stream, common::PATIENCE)
        .await
        .expect("a refused connection is closed");
    assert!(
        answer.is_empty() || answer.starts_with(status),
        "expected {status} or a bare close, got {answer:?}"
    );
}

fn short_timeouts(config: &mut Config) {
    config.edge.header_read_timeout = Duration::from_millis(500);
    config.edge.keep_alive_timeout = Duration::from_millis(300);
    config.edge.request_timeout = Duration::from_millis(500);
}

#[tokio::test]
async fn silent_connections_are_closed_after_the_header_timeout() {
    let server = TestServer::start_with(short_timeouts).await;
    let mut silent = Vec::new();
    for _ in 0..20 {
        silent.push(TcpStream::connect(server.addr).await.unwrap());
    }
    for stream in &mut silent {
        let read = read_to_close(stream, Duration::from_secs(3)).await;
        assert_eq!(read.as_deref(), Some(""), "closed without a word");
    }
    server.stop().await;
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_keep_alive_timeout() {
    let server = TestServer::start_with(|config| {
        config.edge.header_read_timeout = Duration::from_secs(30);
        config.edge.keep_alive_timeout = Duration::from_millis(300);
    })
    .await;
    let mut stream = admitted("127.0.0.1", server.addr).await;
    let started = std::time::Instant::now();
    assert!(
        read_to_close(&mut stream, Duration::from_secs(3))
            .await
            .is_some()
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    server.stop().await;
}

#[tokio::test]
async fn a_request_whose_headers_trickle_in_is_cut_off() {
    let server = TestServer::start_with(short_timeouts).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let mut cut_off = false;
    for line in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let header = format!("x-slow-{line}: 1\r\n");
        if stream.write_all(header.as_bytes()).await.is_err() {
            cut_off = true;
            break;
        }
        let mut buf = [0u8; 64];
        if let Ok(read) = tokio::time::timeout(Duration::ZERO, stream.read(&mut buf)).await {
            assert!(!matches!(read, Ok(n) if n > 0), "the request was served");
            cut_off = true;
            break;
        }
    }
    assert!(cut_off, "still open after 5 s of trickling headers");
    assert!(started.elapsed() < Duration::from_secs(3));
    server.stop().await;
}

#[tokio::test]
async fn a_request_whose_body_never_comes_times_out() {
    let server = TestServer::start_with(short_timeouts).await;
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    let head = b"POST /api/rooms HTTP/1.1\r\nhost: senet.test\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"mode\":";
    assert_eq!(
        status_of(&mut stream, head).await,
        "HTTP/1.1 408 Request Timeout"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_per_address_cap_holds_for_plain_http() {
    let server = TestServer::start_with(|config| {
        config.edge.keep_alive_timeout = Duration::from_secs(30);
        config.edge.max_tcp_connections = 0;
        config.edge.max_tcp_connections_per_address = 2;
    })
    .await;
    let first = admitted("127.0.0.1", server.addr).await;
    let _second = admitted("127.0.0.1", server.addr).await;
    assert_refused("127.0.0.1", server.addr, "HTTP/1.1 429").await;
    // Another address has places of its own.
    let _other = admitted("127.0.0.2", server.addr).await;
    // A closed connection gives its place back.
    drop(first);
    let deadline = tokio::time::Instant::now() + common::PATIENCE;
    loop {
        let mut stream = connect_from("127.0.0.1", server.addr).await;
        let _ = stream.write_all(GET_HEALTHZ).await;
        let mut buf = [0u8; 64];
        let n = stream.read(&mut buf).await.unwrap_or(0);
        if buf[..n].starts_with(b"HTTP/1.1 200") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the place came back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.stop().await;
}

#[tokio::test]
async fn the_overall_cap_holds_for_plain_http() {
    let server = TestServer::start_with(|config| {
        config.edge.keep_alive_timeout = Duration::from_secs(30);
        config.edge.max_tcp_connections = 3;
        config.edge.max_tcp_connections_per_address = 0;
    })
    .await;
    let _held: Vec<TcpStream> = vec![
        admitted("127.0.0.1", server.addr).await,
        admitted("127.0.0.2", server.addr).await,
        admitted("127.0.0.3", server.addr).await,
    ];
    assert_refused("127.0.0.4", server.addr, "HTTP/1.1 503").await;
    server.stop().await;
}

/// One request on its own connection (closed after): the status code, the head's lines
/// (lowercase) and the body.
async fn exchange(
    server: SocketAddr,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> (u16, Vec<String>, String) {
    let mut stream = TcpStream::connect(server).await.unwrap();
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nhost: {server}\r\nconnection: close\r\n");
    for header in headers {
        request.push_str(&format!("{header}\r\n"));
    }
    request.push_str(&format!(
        "content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    ));
    stream.write_all(request.as_bytes()).await.unwrap();
    let answer = read_to_close(&mut stream, common::PATIENCE)
        .await
        .expect("the server closes after its answer");
    let (head, body) = answer.split_once("\r\n\r\n").expect("a whole answer");
    let mut lines = head.lines();
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let head = lines.map(str::to_ascii_lowercase).collect();
    (status, head, body.to_owned())
}

const NEW_ROOM: &str = r#"{"mode":"online","side":"black"}"#;

async fn create_from(server: SocketAddr, forwarded_for: &str) -> u16 {
    let header = format!("x-forwarded-for: {forwarded_for}");
    exchange(server, "POST", "/api/rooms", &[&header], NEW_ROOM)
        .await
        .0
}

#[tokio::test]
async fn creating_rooms_past_the_quota_gets_429_with_retry_after() {
    let server = TestServer::start_with(|config| {
        config.edge.create_burst = 3;
        config.edge.create_per_minute = 1;
    })
    .await;
    for _ in 0..3 {
        assert_eq!(
            exchange(server.addr, "POST", "/api/rooms", &[], NEW_ROOM)
                .await
                .0,
            201
        );
    }
    let (status, head, body) = exchange(server.addr, "POST", "/api/rooms", &[], NEW_ROOM).await;
    assert_eq!(status, 429);
    let retry_after = head
        .iter()
        .find_map(|line| line.strip_prefix("retry-after: "))
        .expect("Retry-After");
    let seconds: u64 = retry_after.parse().unwrap();
    assert!((1..=60).contains(&seconds), "{seconds}");
    let body: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["error"], "rate_limited");
    server.stop().await;
}

#[tokio::test]
async fn x_forwarded_for_counts_only_from_a_trusted_proxy() {
    let untrusted = TestServer::start_with(|config| {
        config.edge.create_burst = 1;
        config.edge.create_per_minute = 1;
    })
    .await;
    // From an untrusted peer the header is the client's word: both are 127.0.0.1.
    assert_eq!(create_from(untrusted.addr, "198.51.100.1").await, 201);
    assert_eq!(create_from(untrusted.addr, "198.51.100.2").await, 429);
    untrusted.stop().await;

    let behind_proxy = TestServer::start_with(|config| {
        config.edge.create_burst = 1;
        config.edge.create_per_minute = 1;
        config.edge.trusted_proxies = "127.0.0.0/8".parse().unwrap();
    })
    .await;
    assert_eq!(create_from(behind_proxy.addr, "198.51.100.1").await, 201);
    assert_eq!(create_from(behind_proxy.addr, "198.51.100.2").await, 201);
    // A client cannot get a fresh address by prepending one: the proxy's hop is the last.
    assert_eq!(
        create_from(behind_proxy.addr, "6.6.6.6, 198.51.100.1").await,
        429
    );
    behind_proxy.stop().await;
}

#[tokio::test]
async fn api_answers_forbid_sniffing_and_caching() {
    let server = TestServer::start().await;
    let (status, head, _) = exchange(server.addr, "POST", "/api/rooms", &[], NEW_ROOM).await;
    assert_eq!(status, 201);
    assert!(head.contains(&"x-content-type-options: nosniff".to_owned()));
    assert!(head.contains(&"cache-control: no-store".to_owned()));
    let (status, head, _) = exchange(server.addr, "GET", "/api/rooms/0000", &[], "").await;
    assert_eq!(status, 404);
    assert!(head.contains(&"cache-control: no-store".to_owned()));
    server.stop().await;
}

/// The status of a WebSocket handshake for `room` with these headers.
async fn handshake(server: SocketAddr, room: &str, host: &str, origin: &str) -> u16 {
    let mut stream = TcpStream::connect(server).await.unwrap();
    let request = format!(
        "GET /ws/rooms/{room} HTTP/1.1\r\nhost: {host}\r\norigin: {origin}\r\n\
         connection: upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\n\
         sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    let status = status_of(&mut stream, request.as_bytes()).await;
    status.split(' ').nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn with_public_origin_a_foreign_origin_is_refused_even_when_host_matches() {
    let server = TestServer::start_with(|config| {
        config.connections.public_origin = "https://senet.example".parse().unwrap();
    })
    .await;
    let room = common::create_room(server.addr, "online", "black").await;
    let room = room["room"].as_str().unwrap();
    // DNS rebinding: the attacker's name resolves to us, so Host and Origin agree.
    let rebound = handshake(
        server.addr,
        room,
        "rebind.example:80",
        "http://rebind.example",
    )
    .await;
    assert_eq!(rebound, 403);
    let own = handshake(server.addr, room, "senet.example", "https://senet.example").await;
    assert_eq!(own, 101);
    server.stop().await;
}

#[tokio::test]
async fn metrics_are_served_only_on_their_own_listener() {
    // Fails on the code before issue 28's item 6: with no --metrics-listen, the public
    // listener served /metrics (and the shipped nginx passed it on).
    let server = TestServer::start().await;
    assert_eq!(
        exchange(server.addr, "GET", "/metrics", &[], "").await.0,
        404
    );
    let (status, _, body) = exchange(server.metrics_addr, "GET", "/metrics", &[], "").await;
    assert_eq!(status, 200);
    assert!(body.contains("senet_tcp_connections_open"), "{body}");
    server.stop().await;
}

/// Issue 44, item 8: the metrics listener's default is not node_exporter's 9100 (nor any port of
/// the Prometheus exporters' 9100–9999, or the server's own 9090–9093), and a listener whose port
/// another process holds fails saying which listener it is and how to move it (before: a bare
/// "Address already in use").
#[tokio::test]
async fn a_taken_port_says_which_listener_and_how_to_move_it() {
    let default: SocketAddr = senet::server::config::DEFAULT_METRICS_LISTEN
        .parse()
        .unwrap();
    assert!(!(9090..=9999).contains(&default.port()), "{default}");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    for (metrics, listen, names) in [
        (
            address.as_str(),
            "127.0.0.1:0",
            [
                "metrics listener",
                "--metrics-listen",
                "SENET_METRICS_LISTEN",
            ],
        ),
        (
            "127.0.0.1:0",
            address.as_str(),
            ["public listener", "--listen", "SENET_LISTEN"],
        ),
    ] {
        let mut config = Config::with_database(url.clone());
        config.listen = listen.into();
        config.metrics_listen = metrics.into();
        let bound = senet::server::Server::bind(&config, Default::default()).await;
        let error = format!("{:#}", bound.err().expect("the port is taken"));
        for said in names.iter().chain([&address.as_str()]) {
            assert!(error.contains(said), "{error:?} does not say {said:?}");
        }
    }
}

//! Test helpers shared by the server tests: a real server on 127.0.0.1:0
//! (in-process, stopped on Drop, or a child process), JSON over HTTP and
//! a WebSocket client that speaks the protocol.

#![allow(dead_code)] // each test binary uses a different subset

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use senet::protocol::Mode;
use senet::secrets::hash_token;
use senet::server::Server;
use senet::server::config::Config;
use senet::store::{RoomRow, SeatRow, StoredEvent};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

/// How long a test waits for any one frame before failing.
pub const PATIENCE: Duration = Duration::from_secs(10);

/// A server in this process on its own temporary SQLite file.
pub struct TestServer {
    pub addr: SocketAddr,
    /// Where `/metrics` is (`--metrics-listen`: never the public listener).
    pub metrics_addr: SocketAddr,
    pub shutdown: CancellationToken,
    pub task: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    pub rooms: senet::room::Rooms,
    pub dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("senet.db").display());
        Self::start_on(dir, url, adjust).await
    }

    /// A second server on the same database as `other`.
    pub async fn beside(other: &TestServer) -> TestServer {
        let url = format!("sqlite://{}", other.dir.path().join("senet.db").display());
        Self::start_on(tempfile::tempdir().unwrap(), url, |_| {}).await
    }

    pub async fn start_on(
        dir: tempfile::TempDir,
        url: String,
        adjust: impl FnOnce(&mut Config),
    ) -> TestServer {
        let mut config = Config::with_database(url);
        config.listen = "127.0.0.1:0".into();
        // Scripted clients act faster than people; the limit itself is
        // tested on its own with the default.
        config.max_messages_per_second = 1_000;
        // Tests run side by side: each server's /metrics on a free port.
        config.metrics_listen = "127.0.0.1:0".into();
        // The computer plays at once: tests wait for events, not for people.
        config.ai_delay_ms = 0;
        // Every test client comes from 127.0.0.1 and creates rooms faster than people; the
        // per-address caps and quotas are tested on their own (tests/edge.rs).
        config.edge.max_tcp_connections_per_address = 0;
        config.edge.create_burst = 0;
        config.edge.identify_burst = 0;
        config.edge.join_burst = 0;
        adjust(&mut config);
        let shutdown = CancellationToken::new();
        let server = Server::bind(&config, shutdown.clone()).await.unwrap();
        let addr = server.local_addr().unwrap();
        let metrics_addr = server.metrics_addr().unwrap();
        let rooms = server.rooms().clone();
        let task = tokio::spawn(server.run());
        TestServer {
            addr,
            metrics_addr,
            shutdown,
            task: Some(task),
            rooms,
            dir,
        }
    }

    /// Stops this server and starts another on the same SQLite file.
    pub async fn restart_with(mut self, adjust: impl FnOnce(&mut Config)) -> TestServer {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
        let dir = std::mem::replace(&mut self.dir, tempfile::tempdir().unwrap());
        let url = format!("sqlite://{}", dir.path().join("senet.db").display());
        Self::start_on(dir, url, adjust).await
    }

    /// Cancels and waits until every connection and room task is done.
    pub async fn stop(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// `senet admin <args>` on the database `url`: (exit code, JSON printed, stderr).
pub async fn admin(url: &str, args: &[&str]) -> (i32, Value, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .arg("admin")
        .args(args)
        .args(["--database-url", url])
        .output()
        .await
        .unwrap();
    let printed = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code().unwrap(), printed, stderr)
}

/// A room's record, read over HTTP.
pub async fn record(addr: SocketAddr, room: &str) -> Value {
    let (status, record) = http(addr, "GET", &format!("/api/rooms/{room}/record"), None).await;
    assert_eq!(status, 200, "{record}");
    record
}

/// Writes `record` to a file and runs `senet verify` on it: the exit code
/// and the verdict it printed (Null if it printed no JSON).
async fn verify(record: &Value) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("record.json");
    std::fs::write(&path, record.to_string()).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .arg("verify")
        .arg(&path)
        .output()
        .await
        .unwrap();
    let verdict = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code().unwrap(), verdict)
}

/// `senet verify` must accept `record` (every throw recomputed from the
/// seed, every move re-judged by the rules); returns its verdict.
pub async fn verify_accepted(record: &Value) -> Value {
    let (code, verdict) = verify(record).await;
    assert_eq!(
        (code, verdict["consistent"].as_bool()),
        (0, Some(true)),
        "senet verify: {verdict}"
    );
    verdict
}

/// `senet verify` must reject `record` as inconsistent (exit code 1).
pub async fn verify_rejected(record: &Value) {
    let (code, verdict) = verify(record).await;
    assert_eq!(
        (code, verdict["consistent"].as_bool()),
        (1, Some(false)),
        "senet verify: {verdict}"
    );
}

/// One HTTP/1.1 request (hyper's client): (status, JSON body or Null).
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    use http_body_util::{BodyExt, Full};
    use hyper::body::Bytes;
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;

    let client = Client::builder(TokioExecutor::new()).build_http();
    let request = hyper::Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"))
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(
            body.map(|b| b.to_string()).unwrap_or_default(),
        )))
        .unwrap();
    let response = client.request(request).await.unwrap();
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// A browser as far as the server's cookies go: it keeps the `senet_player` cookie a response
/// sets (and drops it when told to) and sends it with every request.
pub struct Browser {
    pub addr: SocketAddr,
    pub cookie: Option<String>,
    /// A class's pupil's `senet_pupil` cookie (issue 50), kept and sent like the player's.
    pub pupil: Option<String>,
    /// Every `Set-Cookie` and body this browser received, as text (for the secrets' checks).
    pub seen: Vec<String>,
}

/// One answer to a [`Browser`]: status, JSON body (or Null), the `Set-Cookie` header.
pub struct Answer {
    pub status: u16,
    pub body: Value,
    pub set_cookie: Option<String>,
    /// `Retry-After`, in seconds.
    pub retry_after: Option<u64>,
}

impl Browser {
    pub fn new(addr: SocketAddr) -> Browser {
        Browser {
            addr,
            cookie: None,
            pupil: None,
            seen: Vec::new(),
        }
    }

    pub async fn call(&mut self, method: &str, path: &str, body: Option<Value>) -> Answer {
        use http_body_util::{BodyExt, Full};
        use hyper::body::Bytes;
        use hyper_util::client::legacy::Client;
        use hyper_util::rt::TokioExecutor;

        let client = Client::builder(TokioExecutor::new()).build_http();
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(format!("http://{}{path}", self.addr))
            .header(hyper::header::CONTENT_TYPE, "application/json");
        let cookies: Vec<String> = [("senet_player", &self.cookie), ("senet_pupil", &self.pupil)]
            .into_iter()
            .filter_map(|(name, value)| Some(format!("{name}={}", value.as_ref()?)))
            .collect();
        if !cookies.is_empty() {
            request = request.header(hyper::header::COOKIE, cookies.join("; "));
        }
        let body = Full::new(Bytes::from(body.map(|b| b.to_string()).unwrap_or_default()));
        let response = client.request(request.body(body).unwrap()).await.unwrap();
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(hyper::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok()?.parse().ok());
        let set_cookie = response
            .headers()
            .get(hyper::header::SET_COOKIE)
            .map(|value| value.to_str().unwrap().to_owned());
        if let Some(set) = &set_cookie {
            let (pair, _) = set.split_once(';').unwrap_or((set, ""));
            let cleared = set.contains("Max-Age=0");
            if let Some(value) = pair.strip_prefix("senet_pupil=") {
                self.pupil = (!cleared).then(|| value.to_owned());
            } else {
                let value = pair
                    .strip_prefix("senet_player=")
                    .expect("the player cookie");
                self.cookie = (!cleared).then(|| value.to_owned());
            }
            self.seen.push(set.clone());
        }
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        self.seen.push(String::from_utf8_lossy(&bytes).into_owned());
        Answer {
            status,
            body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            set_cookie,
            retry_after,
        }
    }
}

/// `senet ratings verify` on a database: its exit code and its JSON verdict.
pub fn ratings_verify(url: &str) -> (Option<i32>, Value) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["ratings", "verify", "--database-url", url])
        .output()
        .unwrap();
    let verdict = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (output.status.code(), verdict)
}

/// The `/metrics` body (`http` reads JSON bodies only).
pub async fn metrics_text(addr: SocketAddr) -> String {
    use http_body_util::{BodyExt, Empty};
    use hyper::body::Bytes;
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;

    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let uri = format!("http://{addr}/metrics").parse().unwrap();
    let response = client.get(uri).await.unwrap();
    assert_eq!(response.status(), 200);
    let body = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8(body.to_vec()).unwrap()
}

pub async fn create_room(addr: SocketAddr, mode: &str, side: &str) -> Value {
    let body = json!({"mode": mode, "side": side});
    let (status, created) = http(addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

pub async fn join_room(addr: SocketAddr, room: &str) -> Value {
    let body = json!({});
    let (status, joined) = http(addr, "POST", &format!("/api/rooms/{room}/join"), Some(body)).await;
    assert_eq!(status, 200, "{joined}");
    joined
}

/// A fresh local room (one screen: both seats on one token) and a client in both its seats.
pub async fn local_client(addr: SocketAddr) -> (String, Client) {
    let created = create_room(addr, "local", "black").await;
    let room = created["room"].as_str().unwrap().to_string();
    let client = Client::join(addr, &room, created["token"].as_str()).await;
    (room, client)
}

/// A fresh online room with both seats taken, nobody connected: (room, black token, white token).
pub async fn seated_room(addr: SocketAddr) -> (String, String, String) {
    let created = create_room(addr, "online", "black").await;
    let room = created["room"].as_str().unwrap().to_string();
    let joined = join_room(addr, &room).await;
    let token = |seat: &Value| seat["token"].as_str().unwrap().to_string();
    (room, token(&created), token(&joined))
}

/// Two players connected to a fresh online room: black created it, white joined.
pub struct Table {
    pub room: String,
    pub black: Client,
    pub white: Client,
}

/// A fresh online room on the server at `addr` with both players connected in their seats.
pub async fn online_table(addr: SocketAddr) -> Table {
    let (room, black, white) = seated_room(addr).await;
    let black = Client::join(addr, &room, Some(&black)).await;
    let white = Client::join(addr, &room, Some(&white)).await;
    assert_eq!(
        (black.seat.as_str(), white.seat.as_str()),
        ("black", "white")
    );
    Table { room, black, white }
}

impl Table {
    /// The player of `side` ("black" or "white").
    pub fn mover(&mut self, side: &str) -> &mut Client {
        match side {
            "black" => &mut self.black,
            _ => &mut self.white,
        }
    }
}

/// A WebSocket client that keeps every event it received, in order.
pub struct Client {
    ws: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
    /// Every event frame (those with `d.v`), as received.
    pub events: Vec<Value>,
    /// Every non-event frame, as received.
    pub replies: Vec<Value>,
    /// Every frame, in the order received.
    pub frames: Vec<Value>,
    pub seat: String,
    pub token: Option<String>,
    pub state: Value,
    next_id: u64,
}

/// How a connection ended, as the client saw it.
#[derive(Debug, PartialEq)]
pub enum Closed {
    Code(u16),
    NoCloseFrame,
}

impl Client {
    pub async fn connect(addr: SocketAddr, room: &str) -> Client {
        Client::connect_as(addr, room, None).await
    }

    /// Connects with a browser's player cookie (the secret), as a page's socket carries it.
    pub async fn connect_as(addr: SocketAddr, room: &str, cookie: Option<&str>) -> Client {
        Client::connect_from(addr, room, cookie, None).await
    }

    /// [`Client::connect_as`] through a proxy that says the client is `from`
    /// (`X-Forwarded-For`; the server must trust 127.0.0.1 as its proxy).
    pub async fn connect_from(
        addr: SocketAddr,
        room: &str,
        cookie: Option<&str>,
        from: Option<&str>,
    ) -> Client {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let url = format!("ws://{addr}/ws/rooms/{room}");
        let mut request = url.into_client_request().unwrap();
        if let Some(secret) = cookie {
            let value = format!("senet_player={secret}").parse().unwrap();
            request.headers_mut().insert(hyper::header::COOKIE, value);
        }
        if let Some(from) = from {
            let value = from.parse().unwrap();
            request.headers_mut().insert("x-forwarded-for", value);
        }
        let (ws, _) = tokio_tungstenite::connect_async_with_config(request, None, true)
            .await
            .unwrap();
        Client {
            ws,
            events: Vec::new(),
            replies: Vec::new(),
            frames: Vec::new(),
            seat: String::new(),
            token: None,
            state: Value::Null,
            next_id: 0,
        }
    }

    /// Connects and says hello; the welcome's state is kept in `state`.
    pub async fn join(addr: SocketAddr, room: &str, token: Option<&str>) -> Client {
        Client::join_as(addr, room, token, None).await
    }

    /// [`Client::join`] with a browser's player cookie.
    pub async fn join_as(
        addr: SocketAddr,
        room: &str,
        token: Option<&str>,
        cookie: Option<&str>,
    ) -> Client {
        let client = Client::connect_as(addr, room, cookie).await;
        client.hello(token).await
    }

    /// Says hello on a connected socket; the welcome's state is kept in `state`.
    pub async fn hello(mut self, token: Option<&str>) -> Client {
        let client = &mut self;
        let hello = match token {
            Some(token) => json!({"t": "hello", "d": {"token": token}}),
            None => json!({"t": "hello"}),
        };
        client.send(hello).await;
        let welcome = client.next_reply().await;
        assert_eq!(welcome["t"], "welcome", "{welcome}");
        client.seat = welcome["d"]["seat"].as_str().unwrap().to_string();
        client.state = welcome["d"]["state"].clone();
        client.token = token.map(str::to_string);
        self
    }

    pub async fn send(&mut self, frame: Value) {
        self.send_text(frame.to_string()).await;
    }

    pub async fn send_text(&mut self, text: String) {
        self.ws.send(Message::text(text)).await.unwrap();
    }

    /// A WebSocket ping frame (not the protocol's `ping` message).
    pub async fn send_ping_frame(&mut self) {
        self.ws
            .send(Message::Ping(Default::default()))
            .await
            .unwrap();
    }

    /// The next frame; events are also recorded in `events`.
    pub async fn next(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("timed out waiting for a frame")
                .expect("socket closed")
                .expect("socket error");
            if let Message::Text(text) = message {
                let frame: Value = serde_json::from_str(&text).unwrap();
                self.frames.push(frame.clone());
                if frame["t"] == "state" {
                    self.state = frame["d"].clone();
                }
                if is_event(&frame) {
                    self.events.push(frame.clone());
                } else {
                    self.replies.push(frame.clone());
                }
                return frame;
            }
        }
    }

    /// The next frame that is not an event.
    pub async fn next_reply(&mut self) -> Value {
        loop {
            let frame = self.next().await;
            if !is_event(&frame) && frame["t"] != "watchers" {
                return frame;
            }
        }
    }

    /// Sends an action with a fresh id and waits for its ack or error,
    /// returning that reply. Events before it are kept in `events`.
    pub async fn act(&mut self, t: &str, mut d: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        if d.is_null() {
            d = json!({});
        }
        d["id"] = json!(id);
        self.send(json!({"t": t, "d": d})).await;
        loop {
            let frame = self.next_reply().await;
            if frame["d"]["id"] == json!(id) {
                return frame;
            }
        }
    }

    /// Like [`Client::act`] but the action must succeed; returns the events
    /// received while waiting: those of the action last, possibly preceded
    /// by others this client had not read yet.
    pub async fn ok(&mut self, t: &str, d: Value) -> Vec<Value> {
        let before = self.events.len();
        let reply = self.act(t, d).await;
        assert_eq!(
            reply["t"],
            "ack",
            "{t}: {reply} after {:?}",
            &self.events[before..]
        );
        let v = reply["d"]["v"].as_u64().unwrap();
        self.events[before..]
            .iter()
            .filter(|e| e["d"]["v"].as_u64().unwrap() <= v)
            .cloned()
            .collect()
    }

    /// Like [`Client::act`] but the action must fail with `code`.
    pub async fn refused(&mut self, t: &str, d: Value, code: &str) -> Value {
        let reply = self.act(t, d).await;
        assert_eq!(reply["t"], "error", "{t}: {reply}");
        assert_eq!(reply["d"]["code"], code, "{t}: {reply}");
        reply
    }

    /// Sends each `(type, data, code)` in turn: each must be refused with its code.
    pub async fn refused_all(&mut self, refusals: &[(&str, Value, &str)]) {
        for (t, d, code) in refusals {
            self.refused(t, d.clone(), code).await;
        }
    }

    /// Reads frames until an event with version `v` has arrived.
    pub async fn wait_for_v(&mut self, v: u64) {
        while self.last_v() < v {
            self.next().await;
        }
    }

    /// The first reply of type `t`, already received or still to come.
    pub async fn reply_of_type(&mut self, t: &str) -> Value {
        if let Some(reply) = self.replies.iter().find(|r| r["t"] == t) {
            return reply.clone();
        }
        loop {
            let reply = self.next_reply().await;
            if reply["t"] == t {
                return reply;
            }
        }
    }

    /// Reads frames until an event of type `t` arrives; returns it.
    pub async fn wait_for(&mut self, t: &str) -> Value {
        loop {
            let frame = self.next().await;
            if frame["t"] == t {
                return frame;
            }
        }
    }

    /// The highest version seen, in an event or a state.
    pub fn last_v(&self) -> u64 {
        let from_events = self.events.last().map(|e| e["d"]["v"].as_u64().unwrap());
        from_events
            .unwrap_or(0)
            .max(self.state["v"].as_u64().unwrap_or(0))
    }

    /// A fresh state from the server (`sync`).
    pub async fn sync(&mut self) -> Value {
        let reply = self.act("sync", Value::Null).await;
        assert_eq!(reply["t"], "state", "{reply}");
        reply["d"].clone()
    }

    /// Waits for the server to close the socket; returns the close code.
    pub async fn closed(&mut self) -> Closed {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("timed out waiting for close");
            match message {
                Some(Ok(Message::Close(Some(frame)))) => return Closed::Code(frame.code.into()),
                Some(Ok(Message::Close(None))) | None | Some(Err(_)) => {
                    return Closed::NoCloseFrame;
                }
                Some(Ok(_)) => {}
            }
        }
    }

    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// Throws and moves (the first legal move) for `side` until its turn ends; returns the events.
pub async fn play_turn(client: &mut Client, side: &str) -> Vec<Value> {
    let mut events = Vec::new();
    while client.sync().await["turn"] == side {
        events.extend(client.ok("roll", Value::Null).await);
        let state = client.sync().await;
        if let Some(legal) = state["legal"].as_array().and_then(|l| l.first()) {
            events.extend(client.ok("move", json!({"from": legal["from"]})).await);
        }
    }
    events
}

pub fn is_event(frame: &Value) -> bool {
    frame["d"].get("v").is_some() && frame["t"] != "ack" && frame["t"] != "state"
}

/// The game-relevant events (no presence) of a stream, for comparing.
pub fn without_presence(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["t"] != "presence")
        .cloned()
        .collect()
}

/// `senet serve` by the binary at `bin` on the database `url`, which must refuse to start (a
/// schema it cannot run on): what it said on stderr.
pub async fn serve_refused(bin: &str, url: &str) -> String {
    let serve = tokio::process::Command::new(bin)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(["--metrics-listen", "127.0.0.1:0", "--database-url", url])
        .output();
    let serve = tokio::time::timeout(std::time::Duration::from_secs(30), serve)
        .await
        .unwrap_or_else(|_| panic!("{bin} serve started on a schema it cannot run on"))
        .unwrap();
    let stderr = String::from_utf8_lossy(&serve.stderr).into_owned();
    assert!(!serve.status.success(), "{stderr}");
    stderr
}

/// `senet serve` as a real child process on a given database.
pub struct ChildServer {
    pub child: tokio::process::Child,
    pub addr: SocketAddr,
    /// Where its `/metrics` is.
    pub metrics_addr: SocketAddr,
}

impl ChildServer {
    /// Starts `senet serve` on the SQLite file at `database`; its debug log
    /// is appended to `<database>.log`.
    pub async fn start(database: &std::path::Path, extra: &[&str]) -> ChildServer {
        let url = format!("sqlite://{}", database.display());
        Self::start_url(&url, &database.with_extension("log"), extra).await
    }

    /// Starts `senet serve` on the database `url` names (SQLite or
    /// PostgreSQL); its debug log is appended to `log`.
    pub async fn start_url(url: &str, log: &std::path::Path, extra: &[&str]) -> ChildServer {
        Self::start_url_on("127.0.0.1:0", url, log, extra).await
    }

    /// [`ChildServer::start_url`] listening on `listen` (a replaced instance takes its
    /// predecessor's address).
    pub async fn start_url_on(
        listen: &str,
        url: &str,
        log: &std::path::Path,
        extra: &[&str],
    ) -> ChildServer {
        let mut command = Self::command(env!("CARGO_BIN_EXE_senet"), listen, url);
        command
            .args(["--max-tcp-connections-per-address", "0"])
            .args(["--create-burst", "0", "--join-burst", "0"])
            .args(["--identify-burst", "0"])
            .args(extra);
        Self::spawn(command, log).await
    }

    /// An earlier release's `senet serve` (the binary at `bin`) on the database `url` names,
    /// with the flags every release has had since 0.1.0.
    pub async fn start_release(bin: &str, url: &str, log: &std::path::Path) -> ChildServer {
        let mut command = Self::command(bin, "127.0.0.1:0", url);
        command
            .args(["--max-tcp-connections-per-address", "0"])
            .args(["--create-burst", "0", "--join-burst", "0"]);
        Self::spawn(command, log).await
    }

    fn command(bin: &str, listen: &str, url: &str) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(bin);
        // tungstenite logs whole messages at trace: the server must cap it.
        command
            .env("RUST_LOG", "debug,tungstenite=trace")
            .arg("serve")
            .args(["--listen", listen, "--metrics-listen", "127.0.0.1:0"])
            .args(["--database-url", url])
            .args(["--max-messages-per-second", "1000"])
            .args(["--ai-delay-ms", "0"]);
        command
    }

    /// Starts `command`, its log appended to `log`, and reads the URLs it prints.
    async fn spawn(mut command: tokio::process::Command, log: &std::path::Path) -> ChildServer {
        use tokio::io::AsyncBufReadExt;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let mut child = command
            .stdout(std::process::Stdio::piped())
            .stderr(log)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = tokio::io::BufReader::new(stdout).lines();
        let mut printed = async |prefix: &str, suffix: &str| -> SocketAddr {
            let line = tokio::time::timeout(PATIENCE, lines.next_line())
                .await
                .expect("the server prints its URLs")
                .unwrap()
                .unwrap();
            let addr = line
                .strip_prefix(prefix)
                .and_then(|l| l.strip_suffix(suffix));
            let addr = addr.unwrap_or_else(|| panic!("unexpected line {line:?}"));
            addr.parse().unwrap()
        };
        let addr = printed("listening on http://", "").await;
        let metrics_addr = printed("metrics on http://", "/metrics").await;
        ChildServer {
            child,
            addr,
            metrics_addr,
        }
    }

    pub async fn kill(mut self) {
        self.child.kill().await.unwrap();
    }

    /// Sends SIGTERM and waits for a clean exit.
    pub async fn terminate(mut self) -> std::process::ExitStatus {
        let pid = self.child.id().unwrap();
        let status = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .expect("the server exits after SIGTERM")
            .unwrap()
    }
}

impl Client {
    /// Closes this client and waits until `observer` sees it gone.
    pub async fn close_and_wait(&mut self, observer: &mut Client) {
        let seat = self.seat.clone();
        let _ = self.ws.close(None).await;
        loop {
            let event = observer.wait_for("presence").await;
            if event["d"][&seat]["connected"] == false {
                return;
            }
        }
    }
}

// ---------------------------------------------------------------- store fixtures

/// A stored room with black seated, for the store's own tests.
pub fn room(id: &str) -> RoomRow {
    RoomRow {
        id: id.to_string(),
        mode: Mode::Online,
        seed: [7; 32],
        created_at: 1_700_000_000_000,
        black: Some(seat("black token", "bs")),
        white: None,
        clock: None,
    }
}

pub fn seat(token: &str, level: &str) -> SeatRow {
    SeatRow {
        token_hash: hash_token(token),
        level: level.to_string(),
    }
}

pub fn event(v: u64, kind: &str) -> StoredEvent {
    StoredEvent {
        v,
        at: 1_700_000_000_000 + v as i64,
        kind: kind.to_string(),
        data: format!(r#"{{"n":{v}}}"#),
    }
}

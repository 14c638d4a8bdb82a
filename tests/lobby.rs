//! The lobby on a real server with real sockets: seeks listed live on `/ws/lobby`, taken by
//! exactly one of several takers, withdrawn when their creator's page goes, quick pairing, and
//! (with `SENET_TEST_POSTGRES_URL`) two instances on one PostgreSQL pairing their visitors.

mod common;
mod postgres_support;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Client, PATIENCE, TestServer, http};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

const BLITZ: Value = Value::Null;

fn three_plus_two() -> Value {
    json!({"initial": 180, "increment": 2})
}

/// A `/ws/lobby` client.
struct Lobby {
    ws: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
    /// The first frame: the newest seeks and the games.
    first: Value,
}

impl Lobby {
    async fn open(addr: SocketAddr) -> Lobby {
        let url = format!("ws://{addr}/ws/lobby");
        let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        let mut lobby = Lobby {
            ws,
            first: Value::Null,
        };
        lobby.first = lobby.next().await;
        assert_eq!(lobby.first["t"], "lobby", "{}", lobby.first);
        lobby
    }

    async fn next(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(PATIENCE, self.ws.next())
                .await
                .expect("timed out waiting for a lobby frame")
                .expect("lobby socket closed")
                .expect("lobby socket error");
            if let Message::Text(text) = message {
                return serde_json::from_str(&text).unwrap();
            }
        }
    }

    /// Reads frames until `pick` finds something in one.
    async fn wait_until(&mut self, pick: impl Fn(&Value) -> Option<Value>) -> Value {
        loop {
            if let Some(found) = pick(&self.next().await) {
                return found;
            }
        }
    }

    /// The seek `room` as a `changes` frame adds it.
    async fn added(&mut self, room: &str) -> Value {
        self.wait_until(|frame| changed(frame, "added", room)).await
    }

    /// `{"room", "why"}` as a `changes` frame takes `room` off the list.
    async fn gone(&mut self, room: &str) -> Value {
        self.wait_until(|frame| changed(frame, "gone", room)).await
    }

    /// The games in progress, once a `changes` frame lists `room` among them.
    async fn games_with(&mut self, room: &str) -> Value {
        self.wait_until(|frame| changed(frame, "games", room).map(|_| frame["d"]["games"].clone()))
            .await
    }

    /// Reads frames until one of type `t` about `room` arrives.
    async fn wait_for(&mut self, t: &str, room: &str) -> Value {
        self.wait_until(|frame| {
            (frame["t"] == t && frame["d"]["room"] == room).then(|| frame.clone())
        })
        .await
    }

    async fn send(&mut self, frame: Value) {
        self.ws
            .send(Message::text(frame.to_string()))
            .await
            .unwrap();
    }

    fn lists(&self, room: &str) -> bool {
        let seeks = self.first["d"]["seeks"].as_array().unwrap();
        seeks.iter().any(|seek| seek["room"] == room)
    }
}

/// The entry about `room` in the `part` (`added`, `gone`, `games`) of a `changes` frame.
fn changed(frame: &Value, part: &str, room: &str) -> Option<Value> {
    if frame["t"] != "changes" {
        return None;
    }
    let entries = frame["d"][part].as_array()?;
    entries.iter().find(|entry| entry["room"] == room).cloned()
}

async fn post_seek(addr: SocketAddr, body: Value) -> Value {
    let (status, created) = http(addr, "POST", "/api/seeks", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    created
}

async fn take(addr: SocketAddr, room: &str) -> (u16, Value) {
    let path = format!("/api/seeks/{room}/take");
    http(addr, "POST", &path, None).await
}

async fn pair(addr: SocketAddr, visitor: &str, clock: Value) -> Value {
    let body = json!({"clock": clock, "visitor": visitor});
    let (status, paired) = http(addr, "POST", "/api/pairing", Some(body)).await;
    assert_eq!(status, 200, "{paired}");
    paired
}

async fn summary(addr: SocketAddr, room: &str) -> Value {
    let (status, summary) = http(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(status, 200, "{summary}");
    summary
}

fn room_of(answer: &Value) -> String {
    answer["room"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn a_seek_appears_on_another_lobby_socket_and_disappears_when_taken() {
    let server = TestServer::start().await;
    let mut watcher = Lobby::open(server.addr).await;
    assert_eq!(watcher.first["d"]["seeks"], json!([]));
    let body = json!({"side": "black", "clock": three_plus_two(), "visitor": "ann"});
    let created = post_seek(server.addr, body).await;
    let room = room_of(&created);
    assert_eq!(created["seat"], "black");
    let seek = watcher.added(&room).await;
    assert_eq!(seek["side"], "black");
    assert_eq!(seek["clock"], three_plus_two());
    // Nothing private is listed.
    assert!(!seek.to_string().contains("ann"), "{seek}");
    assert!(Lobby::open(server.addr).await.lists(&room));

    let (status, taken) = take(server.addr, &room).await;
    assert_eq!(status, 200, "{taken}");
    assert_eq!(
        (taken["room"].as_str(), &taken["seat"]),
        (Some(room.as_str()), &json!("white"))
    );
    let gone = watcher.gone(&room).await;
    assert_eq!(gone["why"], "taken");
    assert!(!Lobby::open(server.addr).await.lists(&room));
    assert_eq!(summary(server.addr, &room).await["status"], "playing");

    // The game is listed among the games in progress, and a spectator may watch it.
    let games = watcher.games_with(&room).await;
    let game = &games[0];
    assert_eq!(
        (&game["clock"], &game["moves"]),
        (&three_plus_two(), &json!(0))
    );
    let spectator = Client::join(server.addr, &room, None).await;
    assert_eq!(spectator.seat, "spectator");
    assert_eq!(spectator.state["phase"], "roll");
    server.stop().await;
}

/// Posts wait for nobody: with many lobby sockets open that never read a frame, every post of
/// a burst is answered at once, and a socket that reads hears the whole burst in a few batched
/// frames, not one frame per seek.
#[tokio::test]
async fn posts_are_answered_at_once_while_many_lobby_sockets_do_not_read() {
    const IDLE_SOCKETS: usize = 200;
    const SEEKS: usize = 60;
    let server = TestServer::start_with(|config| {
        config.max_seeks_per_address = 0;
        config.connections.max_connections_per_address = 0;
    })
    .await;
    let url = format!("ws://{}/ws/lobby", server.addr);
    let mut idle = Vec::new();
    for _ in 0..IDLE_SOCKETS {
        idle.push(tokio_tungstenite::connect_async(&url).await.unwrap().0);
    }
    let mut watcher = Lobby::open(server.addr).await;
    let posts = (0..SEEKS).map(|n| async move {
        let sent = Instant::now();
        let body = json!({"visitor": format!("v{n}")});
        let room = room_of(&post_seek(server.addr, body).await);
        (room, sent.elapsed())
    });
    let answered = futures_util::future::join_all(posts).await;
    let slowest = answered.iter().map(|(_, took)| *took).max().unwrap();
    assert!(slowest < Duration::from_secs(3), "a post took {slowest:?}");

    let mut unheard: HashSet<String> = answered.into_iter().map(|(room, _)| room).collect();
    let mut frames = 0;
    while !unheard.is_empty() {
        let frame = watcher.next().await;
        assert_eq!(frame["t"], "changes", "{frame}");
        frames += 1;
        for seek in frame["d"]["added"].as_array().unwrap() {
            unheard.remove(seek["room"].as_str().unwrap());
        }
    }
    assert!(frames <= SEEKS / 4, "{SEEKS} seeks came in {frames} frames");
    drop(idle);
    server.stop().await;
}

#[tokio::test]
async fn of_two_simultaneous_takers_exactly_one_wins() {
    let server = TestServer::start_with(|config| config.max_seeks_per_address = 0).await;
    for n in 0..5 {
        let body = json!({"side": "random", "clock": BLITZ, "visitor": format!("v{n}")});
        let room = room_of(&post_seek(server.addr, body).await);
        let (first, second) = tokio::join!(take(server.addr, &room), take(server.addr, &room));
        let mut statuses = [first.0, second.0];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "{first:?} {second:?}");
        let loser = if first.0 == 409 { first.1 } else { second.1 };
        assert_eq!(loser["error"], "seek_taken", "{loser}");
        let players = &summary(server.addr, &room).await["players"];
        assert_eq!(
            (&players["black"]["seated"], &players["white"]["seated"]),
            (&json!(true), &json!(true))
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn a_seek_whose_creators_lobby_socket_closes_is_withdrawn() {
    let server = TestServer::start_with(|config| config.seek_grace = Duration::from_secs(1)).await;
    let mut watcher = Lobby::open(server.addr).await;
    let created = post_seek(server.addr, json!({"visitor": "bea"})).await;
    let room = room_of(&created);
    let mut creator = Lobby::open(server.addr).await;
    // A stranger's token does not hold it.
    creator
        .send(json!({"t": "hold", "d": {"room": room, "token": "nope", "id": 1}}))
        .await;
    let refused = creator.next().await;
    assert_eq!(
        (&refused["d"]["code"], &refused["d"]["id"]),
        (&json!("bad_token"), &json!(1))
    );
    let token = created["token"].as_str().unwrap();
    creator
        .send(json!({"t": "hold", "d": {"room": room, "token": token}}))
        .await;
    creator.wait_for("held", &room).await;
    // Held: still listed well past the grace.
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(Lobby::open(server.addr).await.lists(&room));

    drop(creator);
    let gone = watcher.gone(&room).await;
    assert_eq!(gone["why"], "withdrawn");
    let (status, refused) = take(server.addr, &room).await;
    assert_eq!((status, &refused["error"]), (409, &json!("seek_taken")));
    server.stop().await;
}

#[tokio::test]
async fn a_seek_is_cancelled_with_its_token_only() {
    let server = TestServer::start().await;
    let mut watcher = Lobby::open(server.addr).await;
    let created = post_seek(server.addr, json!({})).await;
    let room = room_of(&created);
    // Seen listed first: a seek cancelled within one flush of its post is never sent at all.
    watcher.added(&room).await;
    let path = format!("/api/seeks/{room}");
    let (status, refused) = http(server.addr, "DELETE", &path, Some(json!({"token": "x"}))).await;
    assert_eq!((status, &refused["error"]), (403, &json!("bad_token")));
    let token = created["token"].clone();
    let (status, _) = http(server.addr, "DELETE", &path, Some(json!({"token": token}))).await;
    assert_eq!(status, 204);
    let gone = watcher.gone(&room).await;
    assert_eq!(gone["why"], "cancelled");
    let (status, again) = http(server.addr, "DELETE", &path, Some(json!({"token": token}))).await;
    assert_eq!((status, &again["error"]), (409, &json!("seek_taken")));
    server.stop().await;
}

/// A seek cancelled or withdrawn takes its room with it: a late joiner, by the seek or by the
/// room's id, finds nothing to join, and the creator's socket on the room is closed.
#[tokio::test]
async fn a_cancelled_or_withdrawn_seeks_room_cannot_be_joined() {
    let server = TestServer::start_with(|config| config.seek_grace = Duration::from_secs(1)).await;
    let mut watcher = Lobby::open(server.addr).await;

    let cancelled = post_seek(server.addr, json!({})).await;
    let room = room_of(&cancelled);
    watcher.added(&room).await;
    // The creator's page on the room holds it in memory.
    let mut creator = Client::join(server.addr, &room, cancelled["token"].as_str()).await;
    let path = format!("/api/seeks/{room}");
    let token = json!({"token": cancelled["token"]});
    let (status, _) = http(server.addr, "DELETE", &path, Some(token)).await;
    assert_eq!(status, 204);
    creator.closed().await;
    cannot_be_joined(server.addr, &room).await;

    let withdrawn = room_of(&post_seek(server.addr, json!({})).await);
    assert_eq!(watcher.gone(&withdrawn).await["why"], "withdrawn");
    cannot_be_joined(server.addr, &withdrawn).await;
    server.stop().await;
}

/// Nothing of `room` is left to join: not its seek, not its seat, not its socket.
async fn cannot_be_joined(addr: SocketAddr, room: &str) {
    let (status, refused) = take(addr, room).await;
    assert_eq!((status, &refused["error"]), (409, &json!("seek_taken")));
    let join = format!("/api/rooms/{room}/join");
    let (status, refused) = http(addr, "POST", &join, Some(json!({}))).await;
    assert_eq!((status, &refused["error"]), (404, &json!("room_not_found")));
    let (status, _) = http(addr, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(status, 404);
    let socket = format!("ws://{addr}/ws/rooms/{room}");
    assert!(tokio_tungstenite::connect_async(socket).await.is_err());
}

#[tokio::test]
async fn a_browser_holds_one_open_seek_at_a_time() {
    let server = TestServer::start().await;
    let first = post_seek(server.addr, json!({"visitor": "cai"})).await;
    for path in ["/api/seeks", "/api/pairing"] {
        let body = json!({"visitor": "cai", "clock": BLITZ});
        let (status, refused) = http(server.addr, "POST", path, Some(body)).await;
        assert_eq!(
            (status, &refused["error"]),
            (409, &json!("seek_open")),
            "{path}"
        );
    }
    // Another browser on the same address may post; once cancelled, the first may again.
    post_seek(server.addr, json!({"visitor": "dee"})).await;
    let path = format!("/api/seeks/{}", room_of(&first));
    let token = first["token"].clone();
    let (status, _) = http(server.addr, "DELETE", &path, Some(json!({"token": token}))).await;
    assert_eq!(status, 204);
    post_seek(server.addr, json!({"visitor": "cai"})).await;
    server.stop().await;
}

#[tokio::test]
async fn an_address_holds_a_few_open_seeks_at_most() {
    let server = TestServer::start_with(|config| config.max_seeks_per_address = 2).await;
    for _ in 0..2 {
        post_seek(server.addr, json!({})).await;
    }
    let (status, refused) = http(server.addr, "POST", "/api/seeks", Some(json!({}))).await;
    assert_eq!((status, &refused["error"]), (429, &json!("too_many_seeks")));
    server.stop().await;
}

#[tokio::test]
async fn quick_pairing_of_two_visitors_gives_one_started_room() {
    // Every visitor here comes from 127.0.0.1.
    let server = TestServer::start_with(|config| config.max_seeks_per_address = 0).await;
    let first = pair(server.addr, "cat", three_plus_two()).await;
    assert_eq!(first["paired"], false);
    // One's own seek is never one's match, and a second one is refused while it is open.
    let body = json!({"clock": three_plus_two(), "visitor": "cat"});
    let (status, refused) = http(server.addr, "POST", "/api/pairing", Some(body)).await;
    assert_eq!((status, &refused["error"]), (409, &json!("seek_open")));
    // Nor is a seek with another time control.
    assert_eq!(pair(server.addr, "dan", BLITZ).await["paired"], false);
    let second = pair(server.addr, "eve", three_plus_two()).await;
    assert_eq!(second["paired"], true);
    let room = room_of(&first);
    assert_eq!(
        room_of(&second),
        room,
        "the oldest compatible seek is taken"
    );
    both_seated_and_playing(server.addr, &room, &first, &second).await;

    // Two visitors asking at the same moment, with nobody waiting: one game, not two seeks.
    let clock = json!({"initial": 300, "increment": 3});
    let (a, b) = tokio::join!(
        pair(server.addr, "fay", clock.clone()),
        pair(server.addr, "gus", clock)
    );
    assert_eq!(room_of(&a), room_of(&b), "{a} {b}");
    let mut paired = [a["paired"].as_bool(), b["paired"].as_bool()];
    paired.sort();
    assert_eq!(paired, [Some(false), Some(true)]);
    both_seated_and_playing(server.addr, &room_of(&a), &a, &b).await;
    server.stop().await;
}

/// Both answers hold the two seats of a started room: each token sits where it says.
async fn both_seated_and_playing(addr: SocketAddr, room: &str, one: &Value, two: &Value) {
    assert_eq!(summary(addr, room).await["status"], "playing");
    let mut seats = Vec::new();
    for answer in [one, two] {
        let client = Client::join(addr, room, answer["token"].as_str()).await;
        assert_eq!(client.seat, answer["seat"].as_str().unwrap());
        seats.push(client.seat);
    }
    seats.sort();
    assert_eq!(seats, ["black", "white"]);
}

/// Two instances on one PostgreSQL: a seek posted on one appears on the other's lobby sockets;
/// two visitors pairing through different instances meet in one room and play.
async fn two_visitors_on_two_instances_pair_and_play(url: String) {
    let on =
        |url: String| move |config: &mut senet::server::config::Config| config.database_url = url;
    let one = TestServer::start_with(on(url.clone())).await;
    let two = TestServer::start_with(on(url)).await;
    let mut watcher = Lobby::open(two.addr).await;
    let first = pair(one.addr, "hal", BLITZ).await;
    assert_eq!(first["paired"], false);
    let room = room_of(&first);
    watcher.added(&room).await;
    let second = pair(two.addr, "ida", BLITZ).await;
    assert_eq!(
        (room_of(&second), &second["paired"]),
        (room.clone(), &json!(true))
    );
    let gone = watcher.gone(&room).await;
    assert_eq!(gone["why"], "taken");

    let mut players = Vec::new();
    for (addr, answer) in [(one.addr, &first), (two.addr, &second)] {
        players.push(Client::join(addr, &room, answer["token"].as_str()).await);
    }
    players.sort_by_key(|player| player.seat != "black");
    let rolled = players[0].ok("roll", Value::Null).await;
    let legal = &rolled.last().unwrap()["d"]["legal"];
    if let Some(from) = legal[0]["from"].as_u64() {
        players[0].ok("move", json!({"from": from})).await;
    }
    let v = players[0].last_v();
    players[1].wait_for_v(v).await;
    assert_eq!(players[1].events.last(), players[0].events.last());
    one.stop().await;
    two.stop().await;
}

postgres_support::postgres_tests!(two_visitors_on_two_instances_pair_and_play);

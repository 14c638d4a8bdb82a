//! The tournament page's live view (issue 45 item 6), over real sockets: `GET /ws/tournaments/{id}`
//! sends the tournament as `GET` shows it to the socket's player, then again within 1 s of every
//! change of its log — a join, the start's pairing, a game's result — with no asking; on
//! PostgreSQL also when another instance made the change. An unknown id is refused before the
//! upgrade.

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Browser, Client, TestServer};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

mod postgres_support;

/// How soon a page must hear of a change.
const WITHIN: Duration = Duration::from_secs(1);

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

fn now_ms() -> i64 {
    senet::room::now_ms()
}

async fn identified(addr: SocketAddr) -> Browser {
    let mut browser = Browser::new(addr);
    let answer = browser.call("POST", "/api/me", None).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    browser
}

/// A tournament page's socket, with the player's cookie.
async fn watch(addr: SocketAddr, id: &str, browser: &Browser) -> Socket {
    let mut request = format!("ws://{addr}/ws/tournaments/{id}")
        .into_client_request()
        .unwrap();
    if let Some(secret) = &browser.cookie {
        let value = format!("senet_player={secret}").parse().unwrap();
        request.headers_mut().insert(hyper::header::COOKIE, value);
    }
    let (socket, _) = tokio_tungstenite::connect_async(request).await.unwrap();
    socket
}

/// The next `tournament` frame's tournament.
async fn next_view(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(common::PATIENCE, socket.next())
            .await
            .expect("a frame in time")
            .expect("the socket open")
            .unwrap();
        if let Message::Text(text) = message {
            let frame: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(frame["t"], "tournament", "{frame}");
            return frame["d"].clone();
        }
    }
}

/// Views until one satisfies `wanted`, which must come within [`WITHIN`] of `since`.
async fn view_within(
    socket: &mut Socket,
    since: Instant,
    wanted: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        let view = next_view(socket).await;
        if wanted(&view) {
            let took = since.elapsed();
            assert!(took < WITHIN, "the page heard of it after {took:?}");
            return view;
        }
    }
}

fn swiss(starts_in_ms: i64) -> Value {
    json!({
        "name": "Page Swiss", "format": "swiss", "rounds": 3,
        "clock": {"initial": 30, "increment": 0},
        "starts_at": now_ms() + starts_in_ms, "rated": false,
    })
}

async fn create(creator: &mut Browser, body: Value) -> String {
    let answer = creator.call("POST", "/api/tournaments", Some(body)).await;
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.body["id"].as_str().unwrap().to_owned()
}

async fn join(browser: &mut Browser, id: &str) {
    let answer = browser
        .call("POST", &format!("/api/tournaments/{id}/join"), None)
        .await;
    assert_eq!(answer.status, 200, "{}", answer.body);
}

/// Joins, the start's pairing and a result, each seen on a page within 1 s, with the player's
/// own game (and its seat token) on their page alone.
async fn a_page_follows_its_tournament(server: &TestServer) {
    let addr = server.addr;
    let mut anna = identified(addr).await;
    let mut boris = identified(addr).await;
    let id = create(&mut anna, swiss(3_000)).await;

    let mut annas = watch(addr, &id, &anna).await;
    let mut strangers = watch(addr, &id, &Browser::new(addr)).await;
    let first = next_view(&mut annas).await;
    assert_eq!(first["status"], "upcoming");
    assert_eq!(first["you"], Value::Null);
    next_view(&mut strangers).await;

    let joined = Instant::now();
    join(&mut anna, &id).await;
    let view = view_within(&mut annas, joined, |v| v["players"] == 1).await;
    assert_eq!(view["you"]["player"], 1);
    view_within(&mut strangers, joined, |v| v["players"] == 1).await;
    let joined = Instant::now();
    join(&mut boris, &id).await;
    view_within(&mut annas, joined, |v| v["players"] == 2).await;

    // The director pairs at the start: Anna's page shows her game, with her token once its
    // room is made; the stranger's shows the game, and no token.
    let starts = first["settings"]["starts_at"].as_i64().unwrap();
    let mut paired = next_view(&mut annas).await;
    while paired["you"]["game"]["token"].is_null() {
        paired = next_view(&mut annas).await;
    }
    let late = now_ms() - starts;
    assert!(
        late < 1_000 + 250,
        "paired and shown {late} ms after the start"
    );
    let game = paired["you"]["game"].clone();
    let room = game["room"].as_str().unwrap().to_owned();
    // The socket's frame (built once for every page, with Anna's own part added) says what
    // `GET` says to her: nothing has changed since.
    let got = anna
        .call("GET", &format!("/api/tournaments/{id}"), None)
        .await;
    assert_eq!(got.body, paired);
    // The game's room links back to its tournament, for anyone; another room to none.
    let back = Browser::new(addr)
        .call("GET", &format!("/api/rooms/{room}/tournament"), None)
        .await;
    assert_eq!((back.status, &back.body), (200, &json!({"tournament": id})));
    for other in ["0123456789abcdef0123456789abcdef", "not-a-room"] {
        let none = anna
            .call("GET", &format!("/api/rooms/{other}/tournament"), None)
            .await;
        assert_eq!(none.body, json!({"tournament": null}), "{other}");
    }
    let mut seen = next_view(&mut strangers).await;
    while seen["games"].as_array().unwrap().is_empty() {
        seen = next_view(&mut strangers).await;
    }
    assert_eq!(seen["games"][0]["room"], room.as_str());
    assert_eq!(seen["you"], Value::Null);
    assert!(!seen.to_string().contains(game["token"].as_str().unwrap()));

    // Anna resigns: both pages hear the result within 1 s. The director may pair the next
    // round at once, and a page shows the latest state: the game gone from the current ones
    // (the next round's, if any, in its place) and Boris's win in the standings.
    let mut client = Client::join(addr, &room, game["token"].as_str()).await;
    let resigned = Instant::now();
    let reply = client.act("resign", Value::Null).await;
    assert_eq!(reply["t"], "ack", "{reply}");
    let over = |v: &Value| {
        let current = v["games"].as_array().unwrap();
        current.iter().all(|g| g["room"] != room.as_str()) && v["standings"][0]["score"] == 2
    };
    let view = view_within(&mut annas, resigned, over).await;
    assert_ne!(view["you"]["game"]["room"], room.as_str(), "{view}");
    view_within(&mut strangers, resigned, over).await;

    // The only message is ping.
    annas
        .send(Message::Text(
            json!({"t": "ping", "id": 7}).to_string().into(),
        ))
        .await
        .unwrap();
    loop {
        let Some(Ok(Message::Text(text))) = annas.next().await else {
            panic!("the socket closed");
        };
        let frame: Value = serde_json::from_str(&text).unwrap();
        if frame["t"] == "pong" {
            assert_eq!(frame["d"]["id"], 7);
            break;
        }
    }
}

#[tokio::test]
async fn a_page_follows_its_tournament_on_sqlite() {
    let server = TestServer::start_with(|config| config.min_clock_initial = 1).await;
    a_page_follows_its_tournament(&server).await;
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_tournament_has_no_socket() {
    let server = TestServer::start().await;
    let request = format!("ws://{}/ws/tournaments/0123456789abcdef", server.addr)
        .into_client_request()
        .unwrap();
    let refused = tokio_tungstenite::connect_async(request).await;
    match refused {
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            assert_eq!(response.status(), 404)
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    server.stop().await;
}

/// On PostgreSQL: the same, and a page on one instance hears of a join on another.
async fn a_page_hears_another_instance(url: String) {
    let database = url.clone();
    let first = TestServer::start_with(move |config| {
        config.database_url = database;
        config.min_clock_initial = 1;
    })
    .await;
    a_page_follows_its_tournament(&first).await;

    let database = url.clone();
    let second = TestServer::start_with(move |config| config.database_url = database).await;
    let mut creator = identified(first.addr).await;
    let id = create(&mut creator, swiss(60_000)).await;
    let mut elsewhere = watch(second.addr, &id, &Browser::new(second.addr)).await;
    assert_eq!(next_view(&mut elsewhere).await["players"], 0);
    let joined = Instant::now();
    join(&mut creator, &id).await;
    view_within(&mut elsewhere, joined, |v| v["players"] == 1).await;
    second.stop().await;
    first.stop().await;
}

postgres_support::postgres_tests!(a_page_hears_another_instance);

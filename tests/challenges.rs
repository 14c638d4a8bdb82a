//! Challenges by name and by link, blocks and follows (issue 46 items 3, 4 and 6) on a real
//! server over real sockets, each scenario on SQLite and on PostgreSQL (a fresh schema): accept
//! seats both players in one room, heard live on the challenger's lobby socket; a decline's
//! reason reaches the challenger; a live challenge expires (a short `--challenge-expiry`); a
//! block refuses challenges, chat and lobby pairing; the bounds answer a clear error; follows.
//! Across two instances on PostgreSQL, the challenged player's socket on the other instance
//! hears the challenge.

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::time::Duration;

use common::{Browser, Client, PATIENCE, TestServer};
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;

fn sqlite_url(dir: &tempfile::TempDir) -> String {
    format!("sqlite://{}", dir.path().join("senet.db").display())
}

async fn server(url: String, expiry: Option<Duration>) -> TestServer {
    TestServer::start_on(tempfile::tempdir().unwrap(), url, |config| {
        if let Some(expiry) = expiry {
            config.challenge_expiry = expiry;
        }
    })
    .await
}

/// A browser with a player named `name`.
async fn named(addr: SocketAddr, name: &str) -> (Browser, String) {
    let mut browser = Browser::new(addr);
    let made = browser.call("POST", "/api/me", None).await;
    assert_eq!(made.status, 201, "{}", made.body);
    let renamed = browser
        .call("PUT", "/api/me/name", Some(json!({"name": name})))
        .await;
    assert!(renamed.status < 300, "{}", renamed.body);
    let me = browser.call("GET", "/api/me", None).await;
    let id = me.body["id"].as_str().unwrap().to_owned();
    (browser, id)
}

/// A `/ws/lobby` socket carrying a browser's player cookie, as a page's does.
struct Lobby {
    ws: tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>,
}

impl Lobby {
    async fn open(addr: SocketAddr, browser: &Browser) -> Lobby {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let mut request = format!("ws://{addr}/ws/lobby")
            .into_client_request()
            .unwrap();
        let cookie = format!("senet_player={}", browser.cookie.as_ref().unwrap());
        request
            .headers_mut()
            .insert(hyper::header::COOKIE, cookie.parse().unwrap());
        let (ws, _) = tokio_tungstenite::connect_async(request).await.unwrap();
        let mut lobby = Lobby { ws };
        assert_eq!(lobby.next().await["t"], "lobby");
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

    /// The next `challenge` frame about `id` with `status`, within `within`.
    async fn challenge(&mut self, id: &str, status: &str, within: Duration) -> Value {
        tokio::time::timeout(within, async {
            loop {
                let frame = self.next().await;
                let challenge = &frame["d"]["challenge"];
                if frame["t"] == "challenge"
                    && challenge["id"] == id
                    && challenge["status"] == status
                {
                    assert!(
                        challenge.get("token").is_none(),
                        "no token in a frame: {frame}"
                    );
                    return challenge.clone();
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no {status} challenge {id} within {within:?}"))
    }
}

fn five_plus_three() -> Value {
    json!({"initial": 300, "increment": 3})
}

async fn send(from: &mut Browser, to: &str) -> common::Answer {
    let body = json!({"name": to, "clock": five_plus_three(), "side": "white", "message": "hello"});
    from.call("POST", "/api/challenges", Some(body)).await
}

/// Accept: both land seated in one room, the challenger white as asked; the challenger hears
/// it live and fetches their seat with their cookie; a second accept is refused.
async fn accepted_challenge_seats_both(url: String) {
    let server = server(url, None).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (mut boris, boris_id) = named(server.addr, "Boris").await;
    let mut anna_page = Lobby::open(server.addr, &anna).await;
    let mut boris_page = Lobby::open(server.addr, &boris).await;

    let sent = send(&mut anna, "boris").await;
    assert_eq!(sent.status, 201, "{}", sent.body);
    let id = sent.body["id"].as_str().unwrap().to_owned();
    assert_eq!(sent.body["challenged"]["id"], boris_id.as_str());
    assert_eq!(sent.body["message"], "hello");
    assert_eq!(sent.body["link"], Value::Null);
    let heard = boris_page
        .challenge(&id, "pending", Duration::from_secs(1))
        .await;
    assert_eq!(heard["challenger"]["name"], "Anna");
    let listed = boris.call("GET", "/api/challenges", None).await;
    assert_eq!(listed.body["received"][0]["id"], id.as_str());

    let accepted = boris
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    assert_eq!(accepted.body["seat"], "black");
    let room = accepted.body["room"].as_str().unwrap().to_owned();
    let news = anna_page
        .challenge(&id, "accepted", Duration::from_secs(1))
        .await;
    assert_eq!(news["room"], room.as_str());
    let mine = anna
        .call("GET", &format!("/api/challenges/{id}"), None)
        .await;
    assert_eq!(mine.body["seat"], "white", "{}", mine.body);
    let anna_token = mine.body["token"].as_str().unwrap().to_owned();
    let theirs = boris
        .call("GET", &format!("/api/challenges/{id}"), None)
        .await;
    assert!(theirs.body.get("token").is_none(), "{}", theirs.body);

    let again = boris
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    assert_eq!(
        (again.status, again.body["error"].clone()),
        (409, json!("challenge_closed"))
    );

    let boris_token = accepted.body["token"].as_str().unwrap();
    let black = Client::join_as(
        server.addr,
        &room,
        Some(boris_token),
        boris.cookie.as_deref(),
    )
    .await;
    let white = Client::join_as(
        server.addr,
        &room,
        Some(&anna_token),
        anna.cookie.as_deref(),
    )
    .await;
    assert_eq!(black.seat, "black");
    assert_eq!(white.seat, "white");
    assert_eq!(white.state["players"]["white"]["name"], "Anna");
    assert_eq!(white.state["players"]["black"]["name"], "Boris");
    assert_eq!(
        white.state["players"]["black"]["connected"], true,
        "{}",
        white.state
    );
    server.stop().await;
}

/// Decline with a reason: the challenger hears it and reads it; a stranger cannot decline.
async fn declined_with_a_reason(url: String) {
    let server = server(url, None).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (mut boris, _) = named(server.addr, "Boris").await;
    let (mut carl, _) = named(server.addr, "Carl").await;
    let mut anna_page = Lobby::open(server.addr, &anna).await;
    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let path = format!("/api/challenges/{id}/decline");
    let stranger = carl
        .call("POST", &path, Some(json!({"reason": "later"})))
        .await;
    assert_eq!(stranger.body["error"], "challenge_not_found");
    let bad = boris
        .call("POST", &path, Some(json!({"reason": "rude"})))
        .await;
    assert_eq!(bad.status, 400, "{}", bad.body);
    let declined = boris
        .call("POST", &path, Some(json!({"reason": "too-fast"})))
        .await;
    assert_eq!(declined.status, 204, "{}", declined.body);
    let heard = anna_page
        .challenge(&id, "declined", Duration::from_secs(1))
        .await;
    assert_eq!(heard["reason"], "too-fast");
    let shown = anna
        .call("GET", &format!("/api/challenges/{id}"), None)
        .await;
    assert_eq!(shown.body["reason"], "too-fast");
    server.stop().await;
}

/// Expiry (2 s here, the challenger online all along) and cancel: both end the challenge,
/// heard by the challenged player.
async fn expired_and_cancelled(url: String) {
    let server = server(url, Some(Duration::from_secs(2))).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (mut boris, _) = named(server.addr, "Boris").await;
    let _anna_page = Lobby::open(server.addr, &anna).await;
    let mut boris_page = Lobby::open(server.addr, &boris).await;
    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    boris_page
        .challenge(&id, "expired", Duration::from_secs(5))
        .await;
    let late = boris
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    assert_eq!(
        (late.status, late.body["error"].clone()),
        (409, json!("challenge_closed"))
    );
    assert!(late.body["message"].as_str().unwrap().contains("expired"));

    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancelled = anna
        .call("DELETE", &format!("/api/challenges/{id}"), None)
        .await;
    assert_eq!(cancelled.status, 204, "{}", cancelled.body);
    boris_page
        .challenge(&id, "cancelled", Duration::from_secs(1))
        .await;
    server.stop().await;
}

/// A live challenge lives while its challenger is online (a lobby socket: 12 s of life here,
/// 2 s of grace), and lapses within the grace once their last page is gone; a correspondence
/// one does not.
async fn live_challenge_lapses_offline(url: String) {
    let server = server(url, Some(Duration::from_secs(12))).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (boris, _) = named(server.addr, "Boris").await;
    let anna_page = Lobby::open(server.addr, &anna).await;
    let mut boris_page = Lobby::open(server.addr, &boris).await;
    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let letter = json!({"name": "Boris", "clock": {"days": 3}});
    let days = anna.call("POST", "/api/challenges", Some(letter)).await;
    assert_eq!(days.status, 201, "{}", days.body);
    tokio::time::sleep(Duration::from_secs(4)).await;
    let shown = anna
        .call("GET", &format!("/api/challenges/{id}"), None)
        .await;
    assert_eq!(shown.body["status"], "pending", "online past the grace");
    drop(anna_page);
    let gone = tokio::time::Instant::now();
    boris_page
        .challenge(&id, "expired", Duration::from_secs(4))
        .await;
    assert!(gone.elapsed() < Duration::from_secs(4));
    let path = format!("/api/challenges/{}", days.body["id"].as_str().unwrap());
    assert_eq!(
        anna.call("GET", &path, None).await.body["status"],
        "pending"
    );
    server.stop().await;
}

/// A block: no challenge either way, no chat in a game they already have, no lobby pairing.
async fn blocks_refuse_challenge_chat_and_pairing(url: String) {
    let server = server(url, None).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (mut boris, boris_id) = named(server.addr, "Boris").await;
    // A game from before the block, to chat in.
    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let accepted = boris
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    let room = accepted.body["room"].as_str().unwrap().to_owned();
    let mut black = Client::join_as(
        server.addr,
        &room,
        accepted.body["token"].as_str(),
        boris.cookie.as_deref(),
    )
    .await;
    black.ok("chat", json!({"preset": "hello"})).await;

    let blocked = anna
        .call("PUT", &format!("/api/me/blocks/{boris_id}"), None)
        .await;
    assert_eq!(blocked.status, 200, "{}", blocked.body);
    assert_eq!(blocked.body["count"], 1);
    let listed = anna.call("GET", "/api/me/blocks", None).await;
    assert_eq!(listed.body["blocks"][0]["name"], "Boris");

    for (from, to) in [(&mut anna, "Boris"), (&mut boris, "Anna")] {
        let refused = send(from, to).await;
        assert_eq!(
            (refused.status, refused.body["error"].clone()),
            (403, json!("blocked"))
        );
    }
    black
        .refused("chat", json!({"preset": "hello"}), "blocked")
        .await;

    // Pairing: Anna's seek is not offered to Boris; he gets a seek of his own.
    let clock = five_plus_three();
    let seek = anna
        .call(
            "POST",
            "/api/pairing",
            Some(json!({"clock": clock, "visitor": "anna-tab"})),
        )
        .await;
    assert_eq!(seek.body["paired"], false, "{}", seek.body);
    let paired = boris
        .call(
            "POST",
            "/api/pairing",
            Some(json!({"clock": clock, "visitor": "boris-tab"})),
        )
        .await;
    assert_eq!(paired.body["paired"], false, "{}", paired.body);
    let seek_room = seek.body["room"].as_str().unwrap();
    let taken = boris
        .call("POST", &format!("/api/seeks/{seek_room}/take"), None)
        .await;
    assert_eq!(taken.body["error"], "blocked", "{}", taken.body);

    let unblocked = anna
        .call("DELETE", &format!("/api/me/blocks/{boris_id}"), None)
        .await;
    assert_eq!(unblocked.status, 204);
    assert_eq!(send(&mut boris, "Anna").await.status, 201);
    server.stop().await;
}

/// The bounds on challenges answer 429 with words saying which; a link challenge needs no name.
async fn challenge_bounds_and_links(url: String) {
    let server = server(url, None).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (_boris, _) = named(server.addr, "Boris").await;
    let mut stranger = Browser::new(server.addr);
    let none = stranger.call("GET", "/api/challenges", None).await;
    assert_eq!(none.body, json!({"sent": [], "received": []}));
    let anonymous = send(&mut stranger, "Boris").await;
    assert_eq!(anonymous.body["error"], "no_player");
    let myself = send(&mut anna, "Anna").await;
    assert_eq!(myself.body["error"], "bad_request");
    let nobody = send(&mut anna, "Nobody").await;
    assert_eq!(nobody.body["error"], "no_player");

    for _ in 0..5 {
        assert_eq!(send(&mut anna, "Boris").await.status, 201);
    }
    let sixth = send(&mut anna, "Boris").await;
    assert_eq!(
        (sixth.status, sixth.body["error"].clone()),
        (429, json!("too_many_challenges"))
    );
    assert!(
        sixth.body["message"]
            .as_str()
            .unwrap()
            .contains("5 challenges waiting")
    );

    // A link challenge (Carl's: Anna's are spent) accepted by a browser without any player.
    let (mut carl, _) = named(server.addr, "Carl").await;
    let link = carl
        .call(
            "POST",
            "/api/challenges",
            Some(json!({"clock": five_plus_three()})),
        )
        .await;
    assert_eq!(link.status, 201, "{}", link.body);
    let id = link.body["id"].as_str().unwrap();
    assert_eq!(link.body["link"], format!("/c/{id}"));
    assert!(
        !link.body["link"]
            .as_str()
            .unwrap()
            .contains(carl.cookie.as_deref().unwrap())
    );
    let seen = stranger
        .call("GET", &format!("/api/challenges/{id}"), None)
        .await;
    assert_eq!(seen.body["challenger"]["name"], "Carl");
    let joined = stranger
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let rated = carl
        .call(
            "POST",
            "/api/challenges",
            Some(json!({"clock": five_plus_three(), "rated": true})),
        )
        .await;
    let rated_id = rated.body["id"].as_str().unwrap();
    let refused = Browser::new(server.addr)
        .call("POST", &format!("/api/challenges/{rated_id}/accept"), None)
        .await;
    assert_eq!(refused.body["error"], "rated_needs_player");
    server.stop().await;
}

/// Follow, list (online now, playing now, recent results), unfollow.
async fn follows(url: String) {
    let server = server(url, None).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let (mut boris, boris_id) = named(server.addr, "Boris").await;
    let (_carl, carl_id) = named(server.addr, "Carl").await;
    let _boris_page = Lobby::open(server.addr, &boris).await;
    for id in [&boris_id, &carl_id] {
        let followed = anna
            .call("PUT", &format!("/api/me/follows/{id}"), None)
            .await;
        assert_eq!(followed.status, 200, "{}", followed.body);
    }
    let again = anna
        .call("PUT", &format!("/api/me/follows/{boris_id}"), None)
        .await;
    assert_eq!(again.body["count"], 2);
    let unknown = anna
        .call("PUT", "/api/me/follows/0123456789abcdef", None)
        .await;
    assert_eq!(unknown.status, 404);

    // Boris plays Anna now.
    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let accepted = boris
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    let room = accepted.body["room"].as_str().unwrap();
    let list = anna.call("GET", "/api/me/follows", None).await;
    assert_eq!(list.body["max"], 500);
    let follows = list.body["follows"].as_array().unwrap();
    assert_eq!(follows.len(), 2);
    let boris_line = follows
        .iter()
        .find(|f| f["player"]["id"] == boris_id.as_str())
        .unwrap();
    assert_eq!(boris_line["online"], true);
    assert_eq!(boris_line["playing"], room);
    let carl_line = follows
        .iter()
        .find(|f| f["player"]["id"] == carl_id.as_str())
        .unwrap();
    assert_eq!(
        (carl_line["online"].clone(), carl_line["playing"].clone()),
        (json!(false), Value::Null)
    );

    // Boris resigns: not playing any more, and his last result is the loss, by Anna's name.
    let token = accepted.body["token"].as_str().unwrap();
    let mut game = Client::join(server.addr, room, Some(token)).await;
    game.ok("resign", Value::Null).await;
    let list = anna.call("GET", "/api/me/follows", None).await;
    let follows = list.body["follows"].as_array().unwrap();
    let boris_line = follows
        .iter()
        .find(|f| f["player"]["id"] == boris_id.as_str())
        .unwrap();
    assert_eq!(boris_line["playing"], Value::Null);
    assert_eq!(
        boris_line["recent"],
        json!([{"room": room, "result": "loss", "opponent": "Anna"}])
    );

    let gone = anna
        .call("DELETE", &format!("/api/me/follows/{carl_id}"), None)
        .await;
    assert_eq!(gone.status, 204);
    let list = anna.call("GET", "/api/me/follows", None).await;
    assert_eq!(list.body["follows"].as_array().unwrap().len(), 1);
    server.stop().await;
}

/// The 500 bound, on the store itself (500 players made through the API would spend the
/// address's quota on new players).
async fn at_most_500_follows(url: String) {
    use senet::players::identity::{new_player_id, new_secret};
    use senet::players::social::{Bounds, SocialError, SocialStore};
    let players = senet::players::store::open(&url).await.unwrap();
    let social = SocialStore::open(&url, Bounds::default()).await.unwrap();
    let mut ids = Vec::new();
    for _ in 0..502 {
        let id = new_player_id();
        players
            .create_player(&id, &new_secret().1, "127.0.0.1", 1)
            .await
            .unwrap();
        ids.push(id);
    }
    for other in &ids[1..501] {
        social.follow(&ids[0], other, 2).await.unwrap();
    }
    let refused = social.follow(&ids[0], &ids[501], 2).await;
    assert!(
        matches!(refused, Err(SocialError::TooManyFollows(500))),
        "{refused:?}"
    );
    // Following one already followed changes nothing and is not refused... past the bound it is
    // refused like any other, so unfollow first.
    assert!(social.unfollow(&ids[0], &ids[1]).await.unwrap());
    social.follow(&ids[0], &ids[501], 2).await.unwrap();
    assert_eq!(social.follows(&ids[0]).await.unwrap().len(), 500);
}

/// Two accepts of one link challenge at once: one room, and the other a clear 409
/// `challenge_closed`; a link challenge is declined by whoever holds it, not by its challenger.
async fn accept_race_and_link_decline(url: String) {
    let server = server(url, None).await;
    let (mut anna, _) = named(server.addr, "Anna").await;
    let link = json!({"clock": {"days": 3}});
    for _ in 0..5 {
        let made = anna
            .call("POST", "/api/challenges", Some(link.clone()))
            .await;
        assert_eq!(made.status, 201, "{}", made.body);
        let path = format!(
            "/api/challenges/{}/accept",
            made.body["id"].as_str().unwrap()
        );
        let (mut boris, mut carl) = (Browser::new(server.addr), Browser::new(server.addr));
        let (first, second) = tokio::join!(
            boris.call("POST", &path, None),
            carl.call("POST", &path, None)
        );
        let mut statuses = [first.status, second.status];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "{} / {}", first.body, second.body);
        let lost = if first.status == 409 { &first } else { &second };
        assert_eq!(lost.body["error"], "challenge_closed", "{}", lost.body);
        assert!(lost.body["message"].as_str().unwrap().contains("accepted"));
    }

    let made = anna.call("POST", "/api/challenges", Some(link)).await;
    let id = made.body["id"].as_str().unwrap();
    let path = format!("/api/challenges/{id}/decline");
    let reason = json!({"reason": "generic"});
    let own = anna.call("POST", &path, Some(reason.clone())).await;
    assert_eq!(own.body["error"], "challenge_not_found");
    let stranger = Browser::new(server.addr)
        .call("POST", &path, Some(reason))
        .await;
    assert_eq!(stranger.status, 204, "{}", stranger.body);
    let shown = anna
        .call("GET", &format!("/api/challenges/{id}"), None)
        .await;
    assert_eq!(shown.body["status"], "declined");
    server.stop().await;
}

macro_rules! on_sqlite {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $name() {
                    let dir = tempfile::tempdir().unwrap();
                    super::$name(super::sqlite_url(&dir)).await;
                }
            )+
        }
    };
}

on_sqlite!(
    accepted_challenge_seats_both,
    declined_with_a_reason,
    expired_and_cancelled,
    blocks_refuse_challenge_chat_and_pairing,
    challenge_bounds_and_links,
    follows,
    at_most_500_follows,
    accept_race_and_link_decline,
    live_challenge_lapses_offline,
);

/// On PostgreSQL with two instances: the challenged player's page on the other instance hears
/// the challenge, and the challenger's hears the accept.
async fn heard_across_instances(url: String) {
    let first = server(url.clone(), None).await;
    let second = server(url, None).await;
    let (mut anna, _) = named(first.addr, "Anna").await;
    let (boris_first, _) = named(first.addr, "Boris").await;
    let mut boris = Browser::new(second.addr);
    boris.cookie = boris_first.cookie.clone();
    let mut anna_page = Lobby::open(first.addr, &anna).await;
    let mut boris_page = Lobby::open(second.addr, &boris).await;
    let id = send(&mut anna, "Boris").await.body["id"]
        .as_str()
        .unwrap()
        .to_owned();
    boris_page
        .challenge(&id, "pending", Duration::from_secs(1))
        .await;
    let accepted = boris
        .call("POST", &format!("/api/challenges/{id}/accept"), None)
        .await;
    assert_eq!(accepted.status, 200, "{}", accepted.body);
    anna_page
        .challenge(&id, "accepted", Duration::from_secs(1))
        .await;
    second.stop().await;
    first.stop().await;
}

postgres_support::postgres_tests!(
    accepted_challenge_seats_both,
    declined_with_a_reason,
    expired_and_cancelled,
    blocks_refuse_challenge_chat_and_pairing,
    challenge_bounds_and_links,
    follows,
    at_most_500_follows,
    accept_race_and_link_decline,
    live_challenge_lapses_offline,
    heard_across_instances,
);

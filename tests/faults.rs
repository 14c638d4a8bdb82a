//! Faults the fault run (scripts/faults.sh, docs/RELIABILITY.md) exposed, each against a real
//! server: a rematch whose room could not be made, an action resent after a reconnection (or
//! after `unavailable`), a rematch seen in a state before its event, PostgreSQL that stops
//! answering, SQLite's transaction rolled back by itself (as on a full disk), and a full disk.

mod common;
mod postgres_support;

use std::time::{Duration, Instant};

use common::{Client, TestServer, create_room, http, join_room, local_client, record};
use senet::store::StoreError;
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection, SqliteConnection};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The events of kind `t` in a room's record.
fn events_of<'a>(record: &'a Value, t: &str) -> Vec<&'a Value> {
    let events = record["events"].as_array().unwrap();
    events.iter().filter(|e| e["t"] == t).collect()
}

/// A connection to the server's own SQLite file, beside the server's.
async fn database(server: &TestServer) -> SqliteConnection {
    let path = server.dir.path().join("senet.db");
    SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_rematch_whose_room_cannot_be_made_is_not_logged_and_can_be_asked_again() {
    let server = TestServer::start().await;
    let (room, mut client) = local_client(server.addr).await;
    client.ok("resign", Value::Null).await;

    // The database refuses new rooms (as a full disk would) but not the old room's events.
    let mut db = database(&server).await;
    let refuse = "CREATE TRIGGER no_new_rooms BEFORE INSERT ON rooms \
                  BEGIN SELECT RAISE(ABORT, 'no new rooms'); END";
    sqlx::query(refuse).execute(&mut db).await.unwrap();
    let reply = client.act("rematch", Value::Null).await;
    assert_eq!(reply["t"], "error", "{reply}");
    // The log names no room that does not exist, and nobody was sent to one.
    let logged = record(server.addr, &room).await;
    for rematch in events_of(&logged, "rematch") {
        let path = format!("/api/rooms/{}", rematch["d"]["room"].as_str().unwrap());
        assert_eq!(
            http(server.addr, "GET", &path, None).await.0,
            200,
            "{rematch}"
        );
    }
    assert!(
        client.replies.iter().all(|r| r["t"] != "seat"),
        "{:?}",
        client.replies
    );

    // Once rooms can be made again, asking again opens it.
    sqlx::query("DROP TRIGGER no_new_rooms")
        .execute(&mut db)
        .await
        .unwrap();
    let events = client.ok("rematch", Value::Null).await;
    let rematch = events.iter().find(|e| e["t"] == "rematch").unwrap();
    let next = rematch["d"]["room"].as_str().unwrap();
    let (status, summary) = http(server.addr, "GET", &format!("/api/rooms/{next}"), None).await;
    assert_eq!((status, &summary["status"]), (200, &json!("playing")));
    assert_eq!(client.reply_of_type("seat").await["d"]["room"], next);
}

#[tokio::test]
async fn a_transaction_sqlite_rolled_back_by_itself_leaves_no_later_write_uncommitted() {
    let server = TestServer::start().await;
    let (room, mut client) = local_client(server.addr).await;

    // On a full disk SQLite rolls a transaction back by itself; other errors fail one statement
    // and leave it open. Triggers do each, on the client seeds chosen for it.
    let mut db = database(&server).await;
    for (seed, how) in [("full", "ROLLBACK"), ("abort", "ABORT")] {
        let trigger = format!(
            "CREATE TRIGGER refuse_{seed} BEFORE INSERT ON events \
             WHEN NEW.kind = 'client-seed' AND NEW.data LIKE '%{seed}%' \
             BEGIN SELECT RAISE({how}, 'refused'); END"
        );
        sqlx::query(sqlx::AssertSqlSafe(trigger))
            .execute(&mut db)
            .await
            .unwrap();
    }
    for seed in ["full", "abort"] {
        let answer = client.act("seed", json!({"client_seed": seed})).await;
        assert_eq!(answer["t"], "error", "{answer}");
    }

    // What is acknowledged next is committed (before the fix: acknowledged and shown, but left
    // in a transaction that the writer's connection never committed).
    let acked = client.ok("roll", Value::Null).await;
    let logged = record(server.addr, &room).await;
    assert_eq!(
        events_of(&logged, "rolled").len(),
        1,
        "{acked:?} acknowledged: {logged}"
    );
}

#[tokio::test]
async fn a_full_disk_is_unavailable_not_an_internal_error() {
    let mut db = SqliteConnection::connect("sqlite::memory:").await.unwrap();
    sqlx::query("CREATE TABLE t (x BLOB)")
        .execute(&mut db)
        .await
        .unwrap();
    // A database that may not grow answers SQLITE_FULL, as on a full disk.
    let pages: i64 = sqlx::query_scalar("PRAGMA page_count")
        .fetch_one(&mut db)
        .await
        .unwrap();
    let cap = format!("PRAGMA max_page_count = {pages}");
    sqlx::query(sqlx::AssertSqlSafe(cap))
        .execute(&mut db)
        .await
        .unwrap();
    let full = sqlx::query("INSERT INTO t VALUES (zeroblob(100000))")
        .execute(&mut db)
        .await
        .unwrap_err();
    // So a player is told `unavailable` (try again), not `internal`.
    assert!(StoreError::from(full).is_unavailable());
}

/// Connects and says hello with a client name; the welcome is read.
async fn join_named(server: &TestServer, room: &str, token: Option<&str>, name: &str) -> Client {
    let mut client = Client::connect(server.addr, room).await;
    let hello = json!({"t": "hello", "d": {"token": token, "client": name}});
    client.send(hello).await;
    let welcome = client.next_reply().await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    client.state = welcome["d"]["state"].clone();
    client
}

/// Sends `t` with `id` and returns its answer (`ack` or `error`).
async fn send_with_id(client: &mut Client, t: &str, id: Value) -> Value {
    client.send(json!({"t": t, "d": {"id": id}})).await;
    loop {
        let reply = client.next_reply().await;
        if reply["d"]["id"] == id {
            return reply;
        }
    }
}

#[tokio::test]
async fn an_action_resent_with_its_id_after_a_reconnect_is_answered_not_applied_twice() {
    let server = TestServer::start().await;
    // A local room: its one seat acts for the side to move, so a second `roll` whenever a
    // throw is due would be played.
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    let mut client = join_named(&server, room, token, "tab-1").await;
    let first = send_with_id(&mut client, "roll", json!("r1")).await;
    assert_eq!(first["t"], "ack", "{first}");
    // Play the throw, if it can be: a throw is due again either way.
    let state = client.sync().await;
    if let Some(legal) = state["legal"].as_array().and_then(|l| l.first()) {
        client.ok("move", json!({"from": legal["from"]})).await;
    }
    assert_eq!(client.sync().await["phase"], "roll");
    let before = client.last_v();
    client.close().await;

    // The answer was lost with the socket: the client reconnects and sends the roll again.
    let mut again = join_named(&server, room, token, "tab-1").await;
    let resent = send_with_id(&mut again, "roll", json!("r1")).await;
    assert_eq!(resent["t"], "ack", "{resent}");
    assert_eq!(
        resent["d"]["v"], first["d"]["v"],
        "answered as the first was"
    );
    let logged = record(server.addr, room).await;
    assert_eq!(events_of(&logged, "rolled").len(), 1, "{logged}");
    let since: Vec<&Value> = logged["events"].as_array().unwrap()[before as usize..]
        .iter()
        .filter(|e| e["t"] != "presence")
        .collect();
    assert!(
        since.is_empty(),
        "only presence after the first roll: {since:?}"
    );

    // Another client's id, or the same id for another action, is a new action.
    let mut other = join_named(&server, room, token, "tab-2").await;
    let new = send_with_id(&mut other, "roll", json!("r1")).await;
    assert_eq!(new["t"], "ack", "{new}");
    assert!(new["d"]["v"].as_u64() > Some(before), "{new}");
    let logged = record(server.addr, room).await;
    assert_eq!(events_of(&logged, "rolled").len(), 2, "{logged}");
}

#[tokio::test]
async fn a_state_that_shows_the_rematch_before_its_event_still_tells_the_player_its_seat() {
    let server = TestServer::start().await;
    let created = create_room(server.addr, "online", "black").await;
    let room = created["room"].as_str().unwrap();
    let joined = join_room(server.addr, room).await;
    let mut black = Client::join(server.addr, room, created["token"].as_str()).await;
    let mut white = Client::join(server.addr, room, joined["token"].as_str()).await;
    black.ok("resign", Value::Null).await;
    black.ok("rematch", Value::Null).await;

    // The database holds white's rematch back (another writer has it locked), so black's
    // `sync`, sent meanwhile, waits behind it in the room: its state shows the rematch, and the
    // `rematch` event, queued for black's socket while it waited, is older than that state.
    let mut db = database(&server).await;
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut db)
        .await
        .unwrap();
    white.send(json!({"t": "rematch", "d": {"id": "w"}})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    black.send(json!({"t": "sync", "d": {"id": "s"}})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    sqlx::query("COMMIT").execute(&mut db).await.unwrap();
    let state = loop {
        let reply = black.next_reply().await;
        if reply["t"] == "state" {
            break reply["d"].clone();
        }
    };
    let next = state["rematch"]
        .as_str()
        .expect("the state shows the rematch");

    // Black learns where it sits now, as it would have from the event: the token is only
    // ever sent to its own player, so without it black could not follow.
    let seat = black.reply_of_type("seat").await;
    assert_eq!(
        (&seat["d"]["room"], &seat["d"]["seat"]),
        (&json!(next), &json!("white"))
    );
}

/// What the proxy between a server and its database does to the bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Link {
    Up,
    /// Forwards nothing, closes nothing (a partition, the hanging case: what was sent is
    /// delivered once the link is up again).
    Hung,
    /// Delays every chunk by this much each way (a round trip: twice as much).
    Slow(Duration),
}

/// A TCP proxy to `target` whose link does what `link` holds.
async fn proxy(target: String, link: watch::Receiver<Link>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = TcpStream::connect(&target).await else {
                continue;
            };
            let (client_read, client_write) = client.into_split();
            let (upstream_read, upstream_write) = upstream.into_split();
            tokio::spawn(forward(client_read, upstream_write, link.clone()));
            tokio::spawn(forward(upstream_read, client_write, link.clone()));
        }
    });
    addr
}

async fn forward(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    mut link: watch::Receiver<Link>,
) {
    let mut buffer = vec![0; 65536];
    while let Ok(n @ 1..) = from.read(&mut buffer).await {
        let Ok(now) = link
            .wait_for(|link| *link != Link::Hung)
            .await
            .map(|link| *link)
        else {
            return;
        };
        if let Link::Slow(delay) = now {
            tokio::time::sleep(delay).await;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// A server whose database is reached through a [`proxy`], the link's switch, and the
/// database's URL through the proxy (for another instance).
async fn server_through_proxy(url: &str) -> (TestServer, watch::Sender<Link>, String) {
    let (set_link, link) = watch::channel(Link::Up);
    let relay = proxy(url[host_port(url)].to_string(), link).await;
    let relayed = through(url, &relay);
    let server = TestServer::start_on(tempfile::tempdir().unwrap(), relayed.clone(), |_| {}).await;
    (server, set_link, relayed)
}

/// Where a database URL's host and port are in it.
fn host_port(url: &str) -> std::ops::Range<usize> {
    let start = url.find('@').expect("a user in the URL") + 1;
    start..start + url[start..].find('/').expect("a database in the URL")
}

/// `url` with its host and port replaced by `addr`.
fn through(url: &str, addr: &str) -> String {
    let at = host_port(url);
    format!("{}{addr}{}", &url[..at.start], &url[at.end..])
}

/// Sends `t` and reads frames until its answer, failing if that takes two seconds (the rule:
/// every request is answered within 2 s, never left hanging).
async fn answer_within_2s(client: &mut Client, t: &str, d: Value) -> Value {
    let started = Instant::now();
    let answer = tokio::time::timeout(Duration::from_secs(2), client.act(t, d))
        .await
        .unwrap_or_else(|_| panic!("{t} unanswered after 2 s"));
    println!("{t}: {answer} after {:?}", started.elapsed());
    answer
}

async fn readyz_within_2s(server: &TestServer) -> u16 {
    let asked = http(server.addr, "GET", "/readyz", None);
    let (status, _) = tokio::time::timeout(Duration::from_secs(2), asked)
        .await
        .expect("/readyz unanswered after 2 s");
    status
}

/// The next action the local room's one seat can take: a throw, or the first legal move.
async fn next_action(client: &mut Client) -> (&'static str, Value) {
    let state = client.sync().await;
    match state["legal"].as_array().and_then(|legal| legal.first()) {
        Some(legal) if state["phase"] == "move" => ("move", json!({"from": legal["from"]})),
        _ => ("roll", Value::Null),
    }
}

async fn a_database_that_stops_answering_is_answered_unavailable_then_recovered_from(url: String) {
    let (server, set_link, _) = server_through_proxy(&url).await;
    let created = create_room(server.addr, "local", "black").await;
    let mut client = Client::join(
        server.addr,
        created["room"].as_str().unwrap(),
        created["token"].as_str(),
    )
    .await;
    let (t, d) = next_action(&mut client).await;
    assert_eq!(client.act(t, d).await["t"], "ack");
    assert_eq!(readyz_within_2s(&server).await, 200);

    // The database stops answering: every request is answered within 2 s, `unavailable`.
    set_link.send(Link::Hung).unwrap();
    for _ in 0..3 {
        let (t, d) = next_action(&mut client).await;
        let answer = answer_within_2s(&mut client, t, d).await;
        assert_eq!(
            (&answer["t"], &answer["d"]["code"]),
            (&json!("error"), &json!("unavailable")),
            "{answer}"
        );
    }
    assert_eq!(readyz_within_2s(&server).await, 503);

    // It answers again: the instance is ready again by itself, and the game goes on.
    set_link.send(Link::Up).unwrap();
    ready_again(&server).await;
    // An action answered `unavailable` may have been committed when the database came back,
    // so the state may move on under the next one's feet: one of a few goes through.
    let mut answers = Vec::new();
    while answers.len() < 3 {
        let (t, d) = next_action(&mut client).await;
        answers.push(answer_within_2s(&mut client, t, d).await);
        if answers.last().unwrap()["t"] == "ack" {
            return;
        }
    }
    panic!("no action went through after the database came back: {answers:?}");
}

/// Waits until `/readyz` says ready, failing after 5 s.
async fn ready_again(server: &TestServer) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while readyz_within_2s(server).await != 200 {
        assert!(
            Instant::now() < deadline,
            "not ready 5 s after the database came back"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn an_action_answered_unavailable_then_committed_is_not_applied_again_when_resent(
    url: String,
) {
    let (server, set_link, _) = server_through_proxy(&url).await;
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    let mut client = join_named(&server, room, token, "tab-1").await;
    assert_eq!(client.sync().await["phase"], "roll");
    let before = client.last_v();

    // The database stops answering while the throw is being appended: it is answered
    // `unavailable`, and so is its resend meanwhile, but its bytes were sent.
    set_link.send(Link::Hung).unwrap();
    for _ in 0..2 {
        let answer = tokio::time::timeout(
            Duration::from_secs(2),
            send_with_id(&mut client, "roll", json!("r1")),
        )
        .await
        .expect("the throw unanswered after 2 s");
        assert_eq!(answer["d"]["code"], "unavailable", "{answer}");
    }

    // The database answers again and commits the throw; the client, which cannot know that,
    // reconnects and sends it again.
    set_link.send(Link::Up).unwrap();
    ready_again(&server).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    while events_of(&record(server.addr, room).await, "rolled").is_empty() {
        assert!(Instant::now() < deadline, "the throw was never committed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    client.close().await;
    let mut again = join_named(&server, room, token, "tab-1").await;
    let resent = send_with_id(&mut again, "roll", json!("r1")).await;

    // It is answered as the throw the log holds (before the fix: judged again, refused
    // `already_rolled`, or thrown twice after a pass).
    assert_eq!(resent["t"], "ack", "{resent}");
    let logged = record(server.addr, room).await;
    let since = &logged["events"].as_array().unwrap()[before as usize..];
    let rolled: Vec<u64> = (before + 1..)
        .zip(since)
        .filter(|(_, e)| e["t"] == "rolled")
        .map(|(v, _)| v)
        .collect();
    assert_eq!(rolled.len(), 1, "one throw logged: {since:?}");
    let v = resent["d"]["v"].as_u64().unwrap();
    assert!(
        v >= rolled[0],
        "answered at {v}, before the throw at {}",
        rolled[0]
    );
}

/// 200 ms added to every round trip to the database: requests queued in a room behind each
/// other's commits, and a hello that loads the room on another instance, are each answered
/// within 2 s, done or `unavailable` (before the request deadline, the last of the queued
/// seeds waited for every commit before it: 2.5 s here, 0.6 s a commit).
async fn a_slow_database_leaves_no_request_unanswered_for_2s(url: String) {
    let (server, set_link, relayed) = server_through_proxy(&url).await;
    let created = create_room(server.addr, "local", "black").await;
    let (room, token) = (created["room"].as_str().unwrap(), created["token"].as_str());
    let mut sockets = Vec::new();
    for _ in 0..4 {
        sockets.push(Client::join(server.addr, room, token).await);
    }

    set_link
        .send(Link::Slow(Duration::from_millis(100)))
        .unwrap();
    // Each of the seat's sockets offers its client seed at once: four commits, one at a time.
    let offers = sockets
        .iter_mut()
        .enumerate()
        .map(|(i, socket)| async move {
            let seed = json!({"client_seed": format!("seed-{i}")});
            answer_within_2s(socket, "seed", seed).await
        });
    let answers = futures_util::future::join_all(offers).await;
    assert!(
        answers
            .iter()
            .all(|a| a["t"] == "ack" || a["d"]["code"] == "unavailable"),
        "{answers:?}"
    );
    assert!(answers.iter().any(|a| a["t"] == "ack"), "{answers:?}");

    // Another instance loads the room for a hello, in several round trips: each hello is
    // answered within 2 s, and one said again after `unavailable` finds the room loaded.
    let beside = TestServer::start_on(tempfile::tempdir().unwrap(), relayed, |_| {}).await;
    let hello = tokio::time::timeout(Duration::from_secs(2), Client::connect(beside.addr, room));
    let mut client = hello.await.expect("no upgrade within 2 s");
    for _ in 0..10 {
        let started = Instant::now();
        client
            .send(json!({"t": "hello", "d": {"token": token}}))
            .await;
        let answer = tokio::time::timeout(Duration::from_secs(2), client.next_reply()).await;
        let answer = answer.unwrap_or_else(|_| panic!("no answer within 2 s of a hello"));
        println!("hello: {} after {:?}", answer["t"], started.elapsed());
        if answer["t"] == "welcome" {
            return;
        }
        assert_eq!(answer["d"]["code"], "unavailable", "{answer}");
    }
    panic!("three hellos on a slow database, no welcome");
}

/// An instance stopped in the middle of an append (a paused container) holds its transaction's
/// locks, and every other instance's append to the room waits on them. PostgreSQL ends such a
/// session once it has waited on its client for the store's limit (2 s), so the room goes on
/// elsewhere: before the limit, for as long as the instance was stopped (the 20 s of `pause` in
/// docs/RELIABILITY.md).
async fn a_room_goes_on_past_an_instance_stopped_in_its_transaction(url: String) {
    let server = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let (_, mut client) = local_client(server.addr).await;
    let room = client.sync().await["room"].as_str().unwrap().to_string();
    let next = client.last_v() as i64 + 1;

    // The stopped instance: a session made as the store makes its own, its append of the room's
    // next event begun and never finished.
    let options = senet::store::postgres::connect_options(&url).unwrap();
    let mut stopped = PgConnection::connect_with(&options).await.unwrap();
    sqlx::query("BEGIN").execute(&mut stopped).await.unwrap();
    sqlx::query(
        "INSERT INTO events (room, v, at, kind, data) VALUES ($1, $2, 0, 'presence', '{}')",
    )
    .bind(&room)
    .bind(next)
    .execute(&mut stopped)
    .await
    .unwrap();

    // The player's throw waits for that row, and is answered `unavailable` at the deadline; the
    // room goes on with it, and commits it once PostgreSQL has ended the stopped session.
    let started = Instant::now();
    let answer = answer_within_2s(&mut client, "roll", Value::Null).await;
    assert_eq!(answer["d"]["code"], "unavailable", "{answer}");
    loop {
        // 503 while the instance finds the database unavailable.
        let (_, record) = http(
            server.addr,
            "GET",
            &format!("/api/rooms/{room}/record"),
            None,
        )
        .await;
        if let Some(event) = record["events"].get(next as usize - 1) {
            assert_eq!(event["t"], "rolled", "{event}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(6),
            "the room stood still for 6 s behind a stopped instance's transaction"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("the throw was committed after {:?}", started.elapsed());
    ready_again(&server).await;
    let (t, d) = next_action(&mut client).await;
    assert_eq!(client.act(t, d).await["t"], "ack");
    // The stopped session was ended, its append rolled back.
    let after = sqlx::query("SELECT 1").execute(&mut stopped).await;
    assert!(after.is_err(), "the stopped session lives on");
}

postgres_support::postgres_tests!(
    a_room_goes_on_past_an_instance_stopped_in_its_transaction,
    a_database_that_stops_answering_is_answered_unavailable_then_recovered_from,
    an_action_answered_unavailable_then_committed_is_not_applied_again_when_resent,
    a_slow_database_leaves_no_request_unanswered_for_2s
);

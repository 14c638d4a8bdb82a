//! Several instances on one PostgreSQL: the listener on its own, then real
//! `senet serve` processes sharing rooms. Every test here needs the server
//! named by `SENET_TEST_POSTGRES_URL` and works in a fresh schema of its own;
//! without the variable they are reported as ignored (see
//! tests/postgres_support).

mod common;
mod postgres_support;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{ChildServer, Client, Closed, event, http, record, room, verify_accepted};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use senet::engine::Side;
use senet::loadgen;
use senet::loadgen::http::BaseUrl;
use senet::store::postgres::listener::{
    LISTENER_APPLICATION_NAME, Listener, News, Probe, Subscription,
};
use senet::store::{Store, StoreError, StoredEvent};
use serde_json::{Value, json};
use sqlx::{Connection, PgConnection};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// Long enough for a loaded machine, short enough to fail a hung test.
const PATIENCE: Duration = Duration::from_secs(20);

/// Actions after which a random game is given up on (they end far sooner).
const MAX_STEPS: usize = 3_000;

async fn next(news: &mut Subscription) -> News {
    tokio::time::timeout(PATIENCE, news.recv())
        .await
        .expect("no news in time")
        .expect("the listener stopped")
}

/// The next `Appended` about `room`, passing over `Resync`s (which other
/// tests cause by killing listening connections) and news of other rooms
/// (channels are per database, and other tests share it).
async fn next_appended(news: &mut Subscription, room: &str) -> u64 {
    loop {
        if let News::Appended { room: about, v } = next(news).await
            && about == room
        {
            return v;
        }
    }
}

/// Starts a listener on `url` until `shutdown` and waits for the `Resync` it
/// sends once it is listening (before, it hears nothing, so nothing else can
/// come first).
async fn listening(url: &str, probe: Probe, shutdown: &CancellationToken) -> Subscription {
    let mut news = Listener::start_with(url, probe, shutdown.clone()).subscribe();
    assert_eq!(next(&mut news).await, News::Resync);
    news
}

/// Creates a fresh room in `store` and appends events `1..=last` to it;
/// returns its id.
async fn room_up_to(store: &Store, last: u64) -> String {
    let id = senet::secrets::new_room_id();
    store.log.create_room(&room(&id), &[], None).await.unwrap();
    let events: Vec<StoredEvent> = (1..=last).map(|v| event(v, "test")).collect();
    store.log.append(&id, &events, None).await.unwrap();
    id
}

/// Ends every session named `application` that matches `and_where` (SQL on
/// `pg_stat_activity`); returns what `pg_terminate_backend` said for each.
async fn kill_sessions(url: &str, application: &str, and_where: &str) -> Vec<bool> {
    let mut admin = PgConnection::connect(url).await.unwrap();
    // Only this file's fixed conditions are ever spliced in.
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = $1 {and_where}"
    )))
    .bind(application)
    .fetch_all(&mut admin)
    .await
    .unwrap()
}

/// A successful append is heard with the room's new last version; a
/// conflicting one, which wrote nothing, is not heard at all.
async fn appends_are_heard_and_conflicts_are_not(url: String) {
    let store = senet::store::open(&url).await.unwrap();
    let shutdown = CancellationToken::new();
    let mut news = listening(&url, Probe::default(), &shutdown).await;

    let id = room_up_to(&store, 2).await;
    assert_eq!(next_appended(&mut news, &id).await, 2);

    let clash = store.log.append(&id, &[event(2, "test")], None).await;
    assert!(
        matches!(clash, Err(StoreError::VersionConflict(2))),
        "{clash:?}"
    );
    store
        .log
        .append(&id, &[event(3, "test")], None)
        .await
        .unwrap();
    assert_eq!(next_appended(&mut news, &id).await, 3);
    shutdown.cancel();
}

/// Appends to many rooms at once are committed together (one statement per
/// batch), and still every room's new last version is heard.
async fn appends_committed_together_are_each_heard(url: String) {
    let store = senet::store::open(&url).await.unwrap();
    let shutdown = CancellationToken::new();
    let mut news = listening(&url, Probe::default(), &shutdown).await;
    let mut rooms = std::collections::HashSet::new();
    for _ in 0..40 {
        let id = senet::secrets::new_room_id();
        store.log.create_room(&room(&id), &[], None).await.unwrap();
        rooms.insert(id);
    }
    let events = [event(1, "test"), event(2, "test")];
    let appends = rooms.iter().map(|id| store.log.append(id, &events, None));
    for result in futures_util::future::join_all(appends).await {
        result.unwrap();
    }
    while !rooms.is_empty() {
        if let News::Appended { room, v } = next(&mut news).await
            && rooms.remove(&room)
        {
            assert_eq!(v, 2, "{room}");
        }
    }
    shutdown.cancel();
}

/// When the listening connection dies, the listener makes a new one by
/// itself, says `Resync` (notifications in between are lost), and hears
/// appends again.
async fn a_killed_listening_connection_resyncs_and_hears_again(url: String) {
    let store = senet::store::open(&url).await.unwrap();
    let shutdown = CancellationToken::new();
    let mut news = listening(&url, Probe::default(), &shutdown).await;

    let killed = kill_sessions(&url, LISTENER_APPLICATION_NAME, "").await;
    assert!(killed.contains(&true), "no listening connection to kill");
    // News of other tests' rooms may come first.
    while next(&mut news).await != News::Resync {}

    let id = room_up_to(&store, 1).await;
    assert_eq!(next_appended(&mut news, &id).await, 1);
    shutdown.cancel();
}

/// A listening connection that goes silent without any error (a dead
/// network path) is noticed by the listener's probes and made again, with a
/// `Resync`; appends are heard again afterwards.
async fn a_listener_that_stops_hearing_reconnects_by_itself(url: String) {
    let store = senet::store::open(&url).await.unwrap();
    let relay = Relay::start(&url).await;
    let shutdown = CancellationToken::new();
    let probe = Probe {
        every: Duration::from_millis(200),
        patience: Duration::from_millis(500),
    };
    let mut news = listening(&relay.url(&url), probe, &shutdown).await;
    let id = room_up_to(&store, 1).await;
    assert_eq!(next_appended(&mut news, &id).await, 1);

    // Freeze once the probes' own connection exists too, so that it hangs
    // as well (a probe that waits forever to be sent must not hang the
    // listener).
    let mut admin = PgConnection::connect(&url).await.unwrap();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if sessions_named(&mut admin, RELAYED).await == 2 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no probe was sent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    relay.freeze();
    store
        .log
        .append(&id, &[event(2, "test")], None)
        .await
        .unwrap();
    // Appended 2 never arrives: only the probe can tell. (News of other
    // tests' rooms read before the freeze may still come first.)
    loop {
        match next(&mut news).await {
            News::Resync => break,
            News::Appended { room, v } => assert_ne!(room, id, "heard v{v} while frozen"),
            // Other tests' lobbies, spectators, tournaments and challenges.
            News::Seek { .. }
            | News::Spectators { .. }
            | News::SpectatorsAsked { .. }
            | News::Tournament { .. }
            | News::Challenge { .. } => {}
        }
    }
    store
        .log
        .append(&id, &[event(3, "test")], None)
        .await
        .unwrap();
    assert_eq!(next_appended(&mut news, &id).await, 3);
    shutdown.cancel();
}

/// One instance's hold on a player's presence is seen by another while it
/// lasts, and not after it is let go or the holding instance's session
/// ends (as when its process dies).
async fn presence_held_by_one_instance_is_seen_by_another_while_it_lives(url: String) {
    // A name of its own, so that killing its session touches no other test.
    let app = format!("senet-presence-{}", senet::secrets::new_room_id());
    let one = senet::store::open(&format!("{url}&application_name={app}"))
        .await
        .unwrap();
    let two = senet::store::open(&url).await.unwrap();
    let holder = one.cluster.clone().expect("PostgreSQL keeps a cluster");
    let asker = two.cluster.clone().expect("PostgreSQL keeps a cluster");
    let id = senet::secrets::new_room_id();
    one.log.create_room(&room(&id), &[], None).await.unwrap();
    let seen = |side| {
        let (asker, id) = (&asker, &id);
        async move { asker.held_elsewhere(id, side).await.unwrap() }
    };
    assert!(!seen(Side::Black).await);

    // Asking took the key only for a moment: holding it does not wait.
    let hold = holder.hold_presence(&id, Side::Black, true);
    tokio::time::timeout(PATIENCE, hold).await.unwrap().unwrap();
    assert!(seen(Side::Black).await);
    assert!(!seen(Side::White).await, "one key per side");
    holder.hold_presence(&id, Side::Black, false).await.unwrap();
    assert!(!seen(Side::Black).await);

    // The holding session dies while its instance lives: the holds go
    // with it, and holding again takes every one of them on a new session.
    holder.hold_presence(&id, Side::White, true).await.unwrap();
    holder.hold_presence(&id, Side::Black, true).await.unwrap();
    let lock_holder = "AND query LIKE '%advisory_lock_shared%'";
    let killed = kill_sessions(&url, &app, lock_holder).await;
    assert_eq!(killed, [true]);
    gone(&seen, Side::Black).await;
    gone(&seen, Side::White).await;
    holder.hold_presence(&id, Side::Black, true).await.unwrap();
    assert!(seen(Side::Black).await);
    assert!(seen(Side::White).await, "taken again with the new session");
    holder.hold_presence(&id, Side::Black, false).await.unwrap();

    drop((holder, one));
    gone(&seen, Side::White).await;
}

/// An instance stopped (SIGSTOP) right after one statement of its ask for a room's clock went
/// out leaves no exclusive hold on the room's key behind: another instance asking for the same
/// clock hears at once that it is kept, and its presence session, which every attach on that
/// instance waits for, goes on. (The suspected cause of a `scripts/faults.sh pause` failure: a
/// player who waited out the whole pause; docs/RELIABILITY.md.)
async fn an_instance_stopped_while_asking_for_a_clock_holds_up_no_other(url: String) {
    let relay = Relay::start(&url).await;
    let stopped = senet::store::open(&relay.url(&url)).await.unwrap();
    let other = senet::store::open(&url).await.unwrap();
    let stopped = stopped.cluster.clone().expect("PostgreSQL keeps a cluster");
    let other = other.cluster.clone().expect("PostgreSQL keeps a cluster");
    // Its presence session made and the ask's statements prepared (each then goes out in one
    // chunk), on another room's clock.
    let warm_up = senet::secrets::new_room_id();
    stopped.keep_clock(&warm_up).await.unwrap();

    let id = senet::secrets::new_room_id();
    let asking = tokio::spawn({
        let (stopped, id) = (stopped.clone(), id.clone());
        async move { stopped.keep_clock(&id).await }
    });
    relay.freeze_after_next_chunk().await;
    let kept = tokio::time::timeout(Duration::from_secs(1), other.keep_clock(&id)).await;
    assert!(
        matches!(kept, Ok(Ok(true))),
        "the other instance's ask for the clock: {kept:?}"
    );
    let presence = other.hold_presence(&id, Side::Black, true);
    let held = tokio::time::timeout(Duration::from_secs(1), presence).await;
    assert!(matches!(held, Ok(Ok(()))), "presence after it: {held:?}");
    asking.abort();
}

/// Waits until `seen(side)` turns false, as PostgreSQL ends a session.
async fn gone<F, Fut>(seen: &F, side: Side)
where
    F: Fn(Side) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while seen(side).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the hold outlived its session"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The application name of connections through the [`Relay`].
const RELAYED: &str = "senet-relay-test";

/// A TCP relay to the test's PostgreSQL server that can go silent.
struct Relay {
    addr: SocketAddr,
    /// One flag per connection made so far.
    frozen: std::sync::Arc<std::sync::Mutex<Vec<std::sync::Arc<AtomicBool>>>>,
    /// Armed, the next chunk a client sends passes and its connection freezes after it (a
    /// process stopped right after one statement went out).
    stop_after: std::sync::Arc<StopAfter>,
}

#[derive(Default)]
struct StopAfter {
    armed: AtomicBool,
    /// Told once that chunk passed.
    passed: tokio::sync::Notify,
}

impl Relay {
    async fn start(url: &str) -> Relay {
        let options: sqlx::postgres::PgConnectOptions = url.parse().unwrap();
        let server = format!("{}:{}", options.get_host(), options.get_port());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let frozen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop_after = std::sync::Arc::new(StopAfter::default());
        let (flags, stop) = (frozen.clone(), stop_after.clone());
        tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = tokio::net::TcpStream::connect(&server).await.unwrap();
                let flag = std::sync::Arc::new(AtomicBool::new(false));
                flags.lock().unwrap().push(flag.clone());
                let (client_read, client_write) = client.into_split();
                let (upstream_read, upstream_write) = upstream.into_split();
                let sent = Relay::pass(
                    client_read,
                    upstream_write,
                    flag.clone(),
                    Some(stop.clone()),
                );
                tokio::spawn(sent);
                tokio::spawn(Relay::pass(upstream_read, client_write, flag, None));
            }
        });
        Relay {
            addr,
            frozen,
            stop_after,
        }
    }

    /// Lets the next chunk a client sends through, then freezes its connection; returns once
    /// it passed.
    async fn freeze_after_next_chunk(&self) {
        self.stop_after.armed.store(true, Ordering::SeqCst);
        let passed = self.stop_after.passed.notified();
        tokio::time::timeout(PATIENCE, passed)
            .await
            .expect("nothing was sent");
    }

    /// `url` through this relay, under its own application name (so that
    /// tests killing `senet-listener` connections leave it alone).
    fn url(&self, url: &str) -> String {
        let separator = if url.contains('?') { '&' } else { '?' };
        format!(
            "{url}{separator}host={}&port={}&application_name={RELAYED}",
            self.addr.ip(),
            self.addr.port()
        )
    }

    /// Every connection made so far stops passing bytes but stays open, as
    /// over a dead network path; later connections pass normally.
    fn freeze(&self) {
        for flag in self.frozen.lock().unwrap().iter() {
            flag.store(true, Ordering::SeqCst);
        }
    }

    /// Passes bytes until the connection freezes; `stop_after` on a client's side only.
    async fn pass(
        mut from: tokio::net::tcp::OwnedReadHalf,
        mut to: tokio::net::tcp::OwnedWriteHalf,
        frozen: std::sync::Arc<AtomicBool>,
        stop_after: Option<std::sync::Arc<StopAfter>>,
    ) {
        let mut buffer = vec![0; 16 * 1024];
        loop {
            let n = match from.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            if frozen.load(Ordering::SeqCst) {
                // Hold both ends open and swallow everything.
                std::future::pending::<()>().await;
            }
            if to.write_all(&buffer[..n]).await.is_err() {
                return;
            }
            if let Some(stop) = &stop_after
                && stop.armed.swap(false, Ordering::SeqCst)
            {
                frozen.store(true, Ordering::SeqCst);
                stop.passed.notify_one();
            }
        }
    }
}

// ------------------------------------------------------------ real processes

/// Two `senet serve` processes on one database, with their debug logs.
struct Instances {
    one: ChildServer,
    two: ChildServer,
    _logs: tempfile::TempDir,
}

/// Starts two instances on the database `url`.
async fn two_instances(url: &str) -> Instances {
    let logs = tempfile::tempdir().unwrap();
    // A player whose instance died is seen to be gone within a second.
    let flags = ["--presence-check", "1"];
    let one = ChildServer::start_url(url, &logs.path().join("one.log"), &flags).await;
    // The second starts once the first has migrated (they would also take
    // turns through the migrator's lock).
    let two = ChildServer::start_url(url, &logs.path().join("two.log"), &flags).await;
    Instances {
        one,
        two,
        _logs: logs,
    }
}

/// A seated player and where they play.
struct Player {
    client: Client,
    token: String,
}

impl Player {
    /// Connects through `at` with the token of a create or join `answer`.
    async fn sit(at: SocketAddr, room: &str, answer: &Value) -> Player {
        let token = answer["token"].as_str().unwrap().to_string();
        Player {
            client: Client::join(at, room, Some(&token)).await,
            token,
        }
    }
}

/// An online game: black, white and any number of spectators, each on
/// whichever instance the test chose.
struct Table {
    room: String,
    black: Player,
    white: Player,
    watchers: Vec<Client>,
    /// Highest version any action was acknowledged with.
    v: u64,
    /// Actions acknowledged, by type: each must be in the log exactly once.
    acked: std::collections::HashMap<&'static str, usize>,
    /// Where the record is read from while playing.
    black_at: SocketAddr,
}

impl Table {
    /// Creates a room through `black_at` and joins it through `white_at`;
    /// each player connects to the instance they used.
    async fn open(black_at: SocketAddr, white_at: SocketAddr) -> Table {
        let created = common::create_room(black_at, "online", "black").await;
        let room = created["room"].as_str().unwrap().to_string();
        let joined = common::join_room(white_at, &room).await;
        let black = Player::sit(black_at, &room, &created).await;
        let white = Player::sit(white_at, &room, &joined).await;
        assert_eq!(
            (black.client.seat.as_str(), white.client.seat.as_str()),
            ("black", "white")
        );
        let v = black.client.last_v().max(white.client.last_v());
        Table {
            room,
            black,
            white,
            watchers: Vec::new(),
            v,
            acked: Default::default(),
            black_at,
        }
    }

    async fn reseat_black(&mut self, at: SocketAddr) {
        let v = Self::reseat(&mut self.black, at, &self.room, "black").await;
        self.v = self.v.max(v);
    }

    async fn reseat_white(&mut self, at: SocketAddr) {
        let v = Self::reseat(&mut self.white, at, &self.room, "white").await;
        self.v = self.v.max(v);
    }

    /// The player reconnects through `at` with its token and finds the game
    /// where it left it: since then, at most who was connected changed.
    /// Returns the version it came back at.
    async fn reseat(player: &mut Player, at: SocketAddr, room: &str, seat: &str) -> u64 {
        let last_seen = player.client.last_v() as usize;
        player.client = Client::join(at, room, Some(&player.token)).await;
        assert_eq!(player.client.seat, seat);
        let now = player.client.state["v"].as_u64().unwrap() as usize;
        let record = record(at, room).await;
        let since = &record["events"].as_array().unwrap()[last_seen..now];
        assert!(since.iter().all(|e| e["t"] == "presence"), "{since:?}");
        now as u64
    }

    /// Closes every connection.
    async fn leave(self) {
        let clients = [self.black.client, self.white.client].into_iter();
        for client in clients.chain(self.watchers) {
            client.close().await;
        }
    }

    async fn watch_from(&mut self, at: SocketAddr) {
        self.watchers.push(Client::join(at, &self.room, None).await);
    }

    fn clients(&mut self) -> impl Iterator<Item = &mut Client> {
        [&mut self.black.client, &mut self.white.client]
            .into_iter()
            .chain(self.watchers.iter_mut())
    }

    /// Waits until every connection has seen the last acknowledged version.
    async fn settle(&mut self) {
        let v = self.v;
        for client in self.clients() {
            client.wait_for_v(v).await;
        }
    }

    /// (side to move, its opponent).
    fn split(&mut self, turn: &str) -> (&mut Client, &mut Client) {
        match turn {
            "black" => (&mut self.black.client, &mut self.white.client),
            _ => (&mut self.white.client, &mut self.black.client),
        }
    }

    /// The state is at `v`, past the last acknowledged action only by changes of presence: each
    /// instance logs who is connected when it learns of it, paced by `room::bounds`, so such an
    /// event may land after any action, even after the game's end.
    async fn pass_presence(&mut self, v: u64) {
        if v == self.v {
            return;
        }
        let record = record(self.black_at, &self.room).await;
        let since = &record["events"].as_array().unwrap()[self.v as usize..v as usize];
        assert!(since.iter().all(|e| e["t"] == "presence"), "{since:?}");
        self.v = v;
        self.settle().await;
    }

    fn count(&mut self, reply: &Value, action: &'static str) {
        if reply["t"] == "ack" {
            self.v = self.v.max(reply["d"]["v"].as_u64().unwrap());
            *self.acked.entry(action).or_default() += 1;
        }
    }

    /// Plays throws and random legal moves until the game is over or
    /// `steps` actions were made; returns whether it is over. With `race`,
    /// every action of the side to move is sent at the same moment as a
    /// draw offer by the other side, through the other instance.
    async fn play(&mut self, rng: &mut ChaCha8Rng, steps: usize, race: bool) -> bool {
        for _ in 0..steps {
            self.settle().await;
            let state = self.black.client.sync().await;
            self.pass_presence(state["v"].as_u64().unwrap()).await;
            let (kind, data) = match state["phase"].as_str().unwrap() {
                "over" => return true,
                "roll" => ("roll", Value::Null),
                "move" => {
                    let legal = state["legal"].as_array().unwrap();
                    let choice = &legal[rng.random_range(0..legal.len())];
                    ("move", json!({ "from": choice["from"] }))
                }
                other => panic!("unexpected phase {other}: {state}"),
            };
            let (mover, other) = self.split(state["turn"].as_str().unwrap());
            let (done, offered) = if race {
                let (done, offered) =
                    tokio::join!(mover.act(kind, data), other.act("draw-offer", Value::Null));
                (done, Some(offered))
            } else {
                (mover.act(kind, data).await, None)
            };
            // The side to move's action stays legal whichever came first.
            assert_eq!(done["t"], "ack", "{kind}: {done}");
            self.count(&done, kind);
            if let Some(offered) = offered {
                // Refused only if this side's offer from before is still
                // open, or if the move it raced with ended the game.
                let refused = offered["d"]["code"].as_str().unwrap_or_default();
                assert!(
                    offered["t"] == "ack" || ["bad_request", "game_over"].contains(&refused),
                    "{offered}"
                );
                self.count(&offered, "draw-offer");
            }
        }
        false
    }

    /// Twenty actions into the game, still playing, every connection up to date.
    async fn play_a_little(&mut self, rng: &mut ChaCha8Rng) {
        assert!(!self.play(rng, 20, false).await, "still playing");
        self.settle().await;
    }

    /// Plays the game to its end and checks it against the record read
    /// through `at`.
    async fn finish(&mut self, rng: &mut ChaCha8Rng, at: SocketAddr) {
        assert!(self.play(rng, MAX_STEPS, false).await, "the game ends");
        self.check_against_record(at).await;
    }

    /// [`Table::finish`], every action raced by a draw offer.
    async fn finish_racing(&mut self, rng: &mut ChaCha8Rng, at: SocketAddr) {
        assert!(self.play(rng, MAX_STEPS, true).await, "the game ends");
        self.check_against_record(at).await;
    }

    /// Every connection saw exactly the record's events from the moment it
    /// came in, in version order, none missing or repeated; every
    /// acknowledged action is in the log once; `senet verify` accepts it.
    async fn check_against_record(&mut self, at: SocketAddr) {
        self.settle().await;
        let record = record(at, &self.room).await;
        let logged: Vec<Value> = record["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let mut d = e["d"].clone();
                d["v"] = e["v"].clone();
                json!({ "t": e["t"], "d": d })
            })
            .collect();
        for (i, event) in logged.iter().enumerate() {
            assert_eq!(event["d"]["v"], json!(i + 1), "versions are consecutive");
        }
        let last = logged.len() as u64;
        assert!(last >= self.v);
        for client in self.clients() {
            client.wait_for_v(last).await;
            let welcome = client.frames.iter().find(|f| f["t"] == "welcome").unwrap();
            let joined_at = welcome["d"]["state"]["v"].as_u64().unwrap() as usize;
            let seen: Vec<&Value> = client
                .events
                .iter()
                .filter(|e| e["d"]["v"].as_u64().unwrap() <= last)
                .collect();
            let expected: Vec<&Value> = logged[joined_at..].iter().collect();
            assert_eq!(seen, expected, "the {} connection's stream", client.seat);
        }
        let count = |t: &str| logged.iter().filter(|e| e["t"] == t).count();
        assert_eq!(count("rolled"), self.acked["roll"], "throws applied once");
        assert_eq!(count("moved"), self.acked.get("move").copied().unwrap_or(0));
        assert_eq!(
            count("draw-offered"),
            self.acked.get("draw-offer").copied().unwrap_or(0),
            "draw offers applied once"
        );
        verify_accepted(&record).await;
    }
}

/// Black on the first instance, white on the second, a spectator on each:
/// a whole game, and every connection sees the same events in the same order.
async fn players_on_two_instances_play_a_whole_game(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let mut table = Table::open(one.addr, two.addr).await;
    table.watch_from(one.addr).await;
    table.watch_from(two.addr).await;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    table.finish(&mut rng, two.addr).await;
}

/// Both players act through different instances at the same moment, action
/// after action, in several games: each game stays legal, versions stay
/// consecutive and no action is applied twice.
async fn simultaneous_actions_on_two_instances_never_fork_a_game(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    for _ in 0..3 {
        let mut table = Table::open(one.addr, two.addr).await;
        table.watch_from(one.addr).await;
        table.finish_racing(&mut rng, one.addr).await;
    }
}

/// Black plays through one instance and white through the other, and each
/// side throws the moment the other's turn-ending move is acknowledged,
/// before its own instance can have heard of that move: a thousand times,
/// over as many games as it takes, and never refused.
async fn an_action_right_after_an_event_committed_elsewhere_is_judged_after_it(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut handoffs = 0;
    while handoffs < 1_000 {
        let mut table = Table::open(one.addr, two.addr).await;
        let mut turn = String::from("black");
        while let Some(next) = play_a_turn(table.split(&turn).0, &mut rng).await {
            turn = next;
            handoffs += 1;
        }
        table.leave().await;
    }
}

/// The side to move throws and moves until its turn ends; returns who moves
/// next, or `None` once the game is over. Every action must be accepted.
async fn play_a_turn(mover: &mut Client, rng: &mut ChaCha8Rng) -> Option<String> {
    loop {
        let mut events = mover.ok("roll", Value::Null).await;
        let rolled = events.iter().rfind(|e| e["t"] == "rolled").unwrap();
        let legal = rolled["d"]["legal"].as_array().unwrap().clone();
        if !legal.is_empty() {
            let choice = &legal[rng.random_range(0..legal.len())];
            events = mover.ok("move", json!({ "from": choice["from"] })).await;
        }
        for event in &events {
            match event["t"].as_str().unwrap() {
                "game-over" => return None,
                "moved" | "passed" if event["d"]["next"] != mover.seat.as_str() => {
                    return Some(event["d"]["next"].as_str().unwrap().to_string());
                }
                _ => {}
            }
        }
    }
}

/// SIGKILL the first instance mid-game. In a room played across both, the
/// player it served comes back through the second with the token; a room
/// played entirely on the first is picked up by the second, from the log,
/// when its players come back. Both games finish with nothing lost.
async fn a_killed_instance_s_players_finish_on_the_other(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let mut across = Table::open(one.addr, two.addr).await;
    across.watch_from(two.addr).await;
    let mut only_one = Table::open(one.addr, one.addr).await;
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for table in [&mut across, &mut only_one] {
        table.play_a_little(&mut rng).await;
    }
    one.kill().await;

    // White, on the surviving instance, learns that black is gone: the
    // dead instance's hold on black's presence went with its session.
    let white = &mut across.white.client;
    while white.wait_for("presence").await["d"]["black"]["connected"] != false {}
    across.reseat_black(two.addr).await;
    only_one.reseat_black(two.addr).await;
    only_one.reseat_white(two.addr).await;
    for table in [&mut across, &mut only_one] {
        table.finish(&mut rng, two.addr).await;
    }
}

/// A room's spectators count over every live instance: one watching through the second instance
/// is in the `watchers` frames, the state and the summary seen through the first, and stops
/// counting when they leave, and when the second instance is killed.
async fn spectators_count_on_every_live_instance(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let table = Table::open(one.addr, one.addr).await;
    let (room, mut black) = (table.room, table.black.client);
    assert_eq!(spectators_in_summary(one.addr, &room).await, 0);

    let far = Client::join(two.addr, &room, None).await;
    watchers_become(&mut black, 1).await;
    assert_eq!(spectators_in_summary(one.addr, &room).await, 1);
    let near = Client::join(one.addr, &room, None).await;
    assert_eq!(near.state["spectators"], 2, "{}", near.state);
    watchers_become(&mut black, 2).await;
    far.close().await;
    watchers_become(&mut black, 1).await;
    near.close().await;
    watchers_become(&mut black, 0).await;
    assert_eq!(spectators_in_summary(one.addr, &room).await, 0);

    let _far = Client::join(two.addr, &room, None).await;
    watchers_become(&mut black, 1).await;
    two.kill().await;
    // Within `--presence-check` (1 s here) of the death.
    watchers_become(&mut black, 0).await;
    assert_eq!(spectators_in_summary(one.addr, &room).await, 0);
}

/// Reads `client`'s frames until a `watchers` frame says `count`.
async fn watchers_become(client: &mut Client, count: u64) {
    while client.wait_for("watchers").await["d"]["count"] != count {}
}

async fn spectators_in_summary(at: SocketAddr, room: &str) -> Value {
    let (status, summary) = http(at, "GET", &format!("/api/rooms/{room}"), None).await;
    assert_eq!(status, 200, "{summary}");
    summary["spectators"].clone()
}

// ------------------------------------------------------------ nginx

/// Debian's nginx running deploy/nginx/senet.conf on loopback, in front of
/// two instances, as one process (no master) that dies with the test.
struct Nginx {
    child: tokio::process::Child,
    addr: SocketAddr,
    dir: tempfile::TempDir,
}

impl Nginx {
    async fn start(instances: [SocketAddr; 2]) -> Nginx {
        let binary = Path::new("/usr/sbin/nginx");
        assert!(
            binary.exists(),
            "the nginx test needs Debian's nginx: apt-get install -y nginx-light"
        );
        let dir = tempfile::tempdir().unwrap();
        let addr = free_port().await;
        let site = deployed_site(addr, instances);
        std::fs::write(dir.path().join("senet.conf"), site).unwrap();
        let prefix = dir.path().display();
        let main = format!(
            "daemon off;\n\
             master_process off;\n\
             pid {prefix}/nginx.pid;\n\
             error_log {prefix}/error.log info;\n\
             events {{ worker_connections 256; }}\n\
             http {{\n\
                 log_format route '$request_method $uri $status \"$upstream_addr\"';\n\
                 access_log {prefix}/access.log route;\n\
                 client_body_temp_path {prefix}/body;\n\
                 proxy_temp_path {prefix}/proxy;\n\
                 fastcgi_temp_path {prefix}/fastcgi;\n\
                 uwsgi_temp_path {prefix}/uwsgi;\n\
                 scgi_temp_path {prefix}/scgi;\n\
                 include {prefix}/senet.conf;\n\
             }}\n"
        );
        let config = dir.path().join("nginx.conf");
        std::fs::write(&config, main).unwrap();
        let child = tokio::process::Command::new(binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .arg("-c")
            .arg(&config)
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut nginx = Nginx { child, addr, dir };
        nginx.wait_until_up().await;
        nginx
    }

    /// Polls `/healthz` through nginx until an instance answers.
    async fn wait_until_up(&mut self) {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("nginx exited ({status}): {}", self.log("error.log"));
            }
            if tokio::net::TcpStream::connect(self.addr).await.is_ok() {
                let (status, _) = http(self.addr, "GET", "/healthz", None).await;
                if status == 200 {
                    return;
                }
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "nginx did not come up: {}",
                self.log("error.log")
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }

    /// The requests whose path mentions `room`, once `count` of them are
    /// logged (WebSockets are logged when they close).
    async fn requests_for(&self, room: &str, count: usize) -> Vec<Logged> {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            let log = self.log("access.log");
            let requests: Vec<Logged> = log
                .lines()
                .filter(|line| line.contains(room))
                .map(Logged::parse)
                .collect();
            if requests.len() >= count {
                return requests;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "only {} requests for the room logged: {log}",
                requests.len(),
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// One line of the access log, written in the `route` format.
#[derive(Debug)]
struct Logged {
    method: String,
    uri: String,
    /// The instance that answered: the last of those nginx tried.
    served_by: String,
}

impl Logged {
    fn parse(line: &str) -> Logged {
        let (request, upstreams) = line.split_once(" \"").unwrap();
        let mut words = request.split(' ');
        let upstreams = upstreams.trim_end_matches('"');
        Logged {
            method: words.next().unwrap().to_string(),
            uri: words.next().unwrap().to_string(),
            served_by: upstreams.rsplit(", ").next().unwrap().to_string(),
        }
    }
}

/// deploy/nginx/senet.conf as shipped, pointed at this test's ports: only
/// the `listen` line and the two upstream servers change.
fn deployed_site(listen: SocketAddr, instances: [SocketAddr; 2]) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/nginx/senet.conf");
    let mut site = std::fs::read_to_string(path).unwrap();
    for (from, to) in [
        ("listen 80;".to_string(), format!("listen {listen};")),
        (
            "server senet1:8080 ".into(),
            format!("server {} ", instances[0]),
        ),
        (
            "server senet2:8080 ".into(),
            format!("server {} ", instances[1]),
        ),
    ] {
        assert_eq!(site.matches(&from).count(), 1, "{from:?} in {path}");
        site = site.replace(&from, &to);
    }
    site
}

/// A loopback port nobody listens on right now.
async fn free_port() -> SocketAddr {
    let probe = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    probe.local_addr().unwrap()
}

/// A whole game through the deploy/ nginx config with two instances behind
/// it. The room's requests all reach the instance its id hashes to; when
/// that instance is killed mid-game, nginx sends the players, reconnecting
/// with their tokens, to the other, which finishes the game. A spectator on
/// the other instance sees it all.
async fn a_game_through_the_deployed_nginx_config(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let nginx = Nginx::start([one.addr, two.addr]).await;
    let mut table = Table::open(nginx.addr, nginx.addr).await;
    let room = table.room.clone();
    let joined_on = nginx.requests_for(&room, 1).await.remove(0).served_by;
    let (chosen, other) = if joined_on == one.addr.to_string() {
        (one, two)
    } else {
        (two, one)
    };
    let (chosen_addr, other_addr) = (chosen.addr.to_string(), other.addr.to_string());
    table.watch_from(other.addr).await;
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    table.play_a_little(&mut rng).await;

    chosen.kill().await;
    table.reseat_black(nginx.addr).await;
    table.reseat_white(nginx.addr).await;
    table.finish(&mut rng, nginx.addr).await;
    let summary = format!("/api/rooms/{room}");
    assert_eq!(http(nginx.addr, "GET", &summary, None).await.0, 200);
    // Never passed on to the internet, whatever the instances serve (issue 28).
    assert_eq!(http(nginx.addr, "GET", "/metrics", None).await.0, 403);
    // The page route is hashed the same way, whether or not this build serves pages.
    http(nginx.addr, "GET", &format!("/r/{room}"), None).await;
    table.leave().await;

    // The join, four WebSockets (two before the kill, two after), the
    // record, the summary and the page.
    let requests = nginx.requests_for(&room, 8).await;
    let sockets = |by: &str| {
        let on = |r: &&Logged| r.uri.starts_with("/ws/") && r.served_by == by;
        requests.iter().filter(on).count()
    };
    assert_eq!(
        (sockets(&chosen_addr), sockets(&other_addr)),
        (2, 2),
        "{requests:?}"
    );
    for request in requests.iter().filter(|r| !r.uri.starts_with("/ws/")) {
        let expected = match request.method.as_str() {
            "POST" => &chosen_addr,
            _ => &other_addr,
        };
        assert_eq!(&request.served_by, expected, "{request:?}");
    }
}

/// `senet loadgen` over two instances with every room's players split between them: each
/// event crosses the cluster, and every action is still answered, with no version gap.
async fn a_load_run_across_two_instances_answers_every_action(url: String) {
    let Instances { one, two, _logs } = two_instances(&url).await;
    let targets = [one.addr, two.addr]
        .map(|addr| BaseUrl::parse(&format!("http://{addr}")).unwrap())
        .to_vec();
    let config = loadgen::Config {
        rooms: 40,
        rate: Some(200.0),
        per_connection_rate: Some(18.0),
        duration: Duration::from_secs(3),
        idle: false,
        connect_concurrency: 8,
        server_pid: None,
        source_addresses: 8,
        split_players: true,
        reconnect: false,
        rated: false,
        clock: None,
    };
    let report = loadgen::run_server(targets, &config).await;
    assert_eq!(report.errors, 0, "{:?}", report.error_kinds);
    assert_eq!((report.rooms, report.connections), (40, 80));
    assert!(report.actions_sent > 100, "{}", report.actions_sent);
    assert_eq!(report.actions_answered, report.actions_sent);
}

/// `senet loadgen --reconnect` over two instances, the first SIGKILLed mid-run: every room has
/// one player there, and each takes its seat again on the other instance with every event it
/// saw still in the log (the load generator checks the welcome's version), and play goes on.
async fn a_load_run_survives_a_killed_instance(url: String) {
    const ROOMS: u64 = 20;
    let Instances { one, two, _logs } = two_instances(&url).await;
    let targets = [one.addr, two.addr]
        .map(|addr| BaseUrl::parse(&format!("http://{addr}")).unwrap())
        .to_vec();
    let config = loadgen::Config {
        rooms: ROOMS as usize,
        rate: Some(100.0),
        per_connection_rate: Some(18.0),
        duration: Duration::from_secs(4),
        idle: false,
        connect_concurrency: 8,
        server_pid: None,
        source_addresses: 1,
        split_players: true,
        reconnect: true,
        rated: false,
        clock: None,
    };
    let (one_addr, two_addr) = (one.metrics_addr, two.metrics_addr);
    let killer = tokio::spawn(async move {
        // Once every room is open (the run then starts), a second into the run.
        let deadline = tokio::time::Instant::now() + PATIENCE;
        while open_sockets(one_addr).await + open_sockets(two_addr).await < 2 * ROOMS {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the rooms never opened"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        one.kill().await;
        unix_ms_now()
    });
    let report = loadgen::run_server(targets, &config).await;
    let killed_at = killer.await.unwrap();
    assert_eq!(report.connections, 2 * ROOMS, "{report:?}");
    assert_eq!(report.reconnects as u64, ROOMS, "{report:?}");
    // Every player's welcome held each action it had seen acknowledged, and every game went on.
    assert_eq!(report.acknowledged_actions_lost, 0, "{report:?}");
    assert_eq!(report.games_lost, 0, "{report:?}");
    for kind in report.error_kinds.keys() {
        // What a killed peer's socket says; nothing lost, nothing left unanswered.
        assert!(kind.starts_with("socket: "), "{kind}: {report:?}");
    }
    assert_eq!(
        report.actions_answered + report.actions_in_flight_at_close,
        report.actions_sent
    );
    // Every room's game went on after the kill.
    let mut db = PgConnection::connect(&url).await.unwrap();
    let last: Vec<(String, i64)> = sqlx::query_as("SELECT room, MAX(at) FROM events GROUP BY room")
        .fetch_all(&mut db)
        .await
        .unwrap();
    assert_eq!(last.len() as u64, ROOMS);
    for (room, at) in last {
        assert!(at > killed_at, "{room}: nothing after the kill");
    }
}

fn unix_ms_now() -> i64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    i64::try_from(now.unwrap().as_millis()).unwrap()
}

/// The WebSockets open on the instance whose `/metrics` is at `addr` (its gauge).
async fn open_sockets(addr: SocketAddr) -> u64 {
    let metrics = common::metrics_text(addr).await;
    metrics
        .lines()
        .find_map(|line| line.strip_prefix("senet_connections_open "))
        .map_or(0, |value| value.trim().parse::<f64>().unwrap() as u64)
}

/// An online game timed `initial` seconds, created and joined through `at` (so started there,
/// with nobody connected): its room and the moment `started` was logged.
async fn timed_game_on(at: SocketAddr, initial: u32) -> (String, i64) {
    let body =
        json!({"mode": "online", "side": "black", "clock": {"initial": initial, "increment": 0}});
    let (status, created) = http(at, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    common::join_room(at, &room).await;
    let started = logged(&record(at, &room).await, "started");
    (room, started[0]["at"].as_i64().unwrap())
}

/// The events of type `t` in a record.
fn logged(record: &Value, t: &str) -> Vec<Value> {
    let events = record["events"].as_array().unwrap();
    events.iter().filter(|e| e["t"] == t).cloned().collect()
}

/// Waits until the file at `log` has a line containing `text`.
async fn log_says(log: &Path, text: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !std::fs::read_to_string(log).unwrap().contains(text) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{log:?} never said {text:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The sessions on the server whose `application_name` is `application`.
async fn sessions_named(admin: &mut PgConnection, application: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1")
        .bind(application)
        .fetch_one(admin)
        .await
        .unwrap()
}

/// Waits until no session named `application` is left on the server (its locks went with them).
async fn sessions_gone(url: &str, application: &str) {
    let mut admin = PgConnection::connect(url).await.unwrap();
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        if sessions_named(&mut admin, application).await == 0 {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{application} lives on"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A timed game kept by one instance: a second instance that starts (and so loads every timed
/// game being played) and is watched gives no time back and logs no `resumed`, and when the
/// first is killed the second's clock, which ran all along, ends the game on time. A timed game
/// that no live instance keeps (the only one that did was killed) is resumed by the instance
/// that takes it up next, as after a restart.
async fn a_second_instance_gives_no_time_back_and_takes_over_the_clock(url: String) {
    const INITIAL_MS: i64 = 15_000;
    let logs = tempfile::tempdir().unwrap();
    let flags = ["--presence-check", "1", "--min-clock-initial", "1"];
    // A name of its own, to see its sessions end.
    let app = format!("senet-one-{}", senet::secrets::new_room_id());
    let one_url = format!("{url}&application_name={app}");
    let one = ChildServer::start_url(&one_url, &logs.path().join("one.log"), &flags).await;
    let (kept, started_at) = timed_game_on(one.addr, (INITIAL_MS / 1_000) as u32).await;
    // Long enough since the last event for time given back to show.
    tokio::time::sleep(Duration::from_millis(2_500)).await;

    let two_log = logs.path().join("two.log");
    let two = ChildServer::start_url(&url, &two_log, &flags).await;
    log_says(&two_log, "timed rooms being played loaded").await;
    let joining = senet::room::now_ms();
    let mut watcher = Client::join(two.addr, &kept, None).await;
    let joined = senet::room::now_ms();
    let clock = &watcher.state["clock"];
    assert_eq!(clock["running"], "black", "{clock}");
    let black = clock["remaining"]["black"].as_i64().unwrap();
    let honest = INITIAL_MS - (joined - started_at)..=INITIAL_MS - (joining - started_at);
    assert!(
        honest.contains(&black),
        "black has {black} ms, not {honest:?}"
    );
    assert_eq!(
        logged(&record(two.addr, &kept).await, "resumed"),
        [] as [Value; 0]
    );

    let (unkept, _) = timed_game_on(one.addr, (INITIAL_MS / 1_000) as u32).await;
    one.kill().await;
    sessions_gone(&url, &app).await;
    assert!(
        senet::room::now_ms() < started_at + INITIAL_MS,
        "the first instance was killed before the deadline"
    );

    // Nobody kept this one's clock since the first instance died: the second resumes it.
    Client::join(two.addr, &unkept, None).await;
    let unkept_record = record(two.addr, &unkept).await;
    let resumed = logged(&unkept_record, "resumed");
    let all_time = json!({"black": INITIAL_MS, "white": INITIAL_MS});
    assert_eq!(resumed.len(), 1, "{unkept_record}");
    assert_eq!(resumed[0]["d"]["clocks"], all_time);

    // The second instance's clock ran all along: the game ends at the first deadline.
    let until_deadline = started_at + INITIAL_MS - senet::room::now_ms();
    tokio::time::sleep(Duration::from_millis(until_deadline.max(0) as u64)).await;
    let over = watcher.wait_for("game-over").await;
    assert_eq!(over["d"]["reason"], "timeout", "{over}");
    let record = record(two.addr, &kept).await;
    let over_at = logged(&record, "game-over")[0]["at"].as_i64().unwrap();
    let late = over_at - (started_at + INITIAL_MS);
    // Time given back would make it 2.5 s late at least.
    assert!(
        (0..1_000).contains(&late),
        "timed out {late} ms after the deadline"
    );
    assert_eq!(logged(&record, "resumed"), [] as [Value; 0]);
    verify_accepted(&record).await;
}

/// A planned drain costs the player on turn no time. A timed game through the deployed nginx,
/// its players on the instance the room hashes to, a spectator on the other (which so keeps the
/// clock too); the first instance is drained (SIGTERM) on the mover's turn, and the mover comes
/// back through nginx, onto the other, two seconds later. The drain logged `paused` before the
/// sockets closed, the other instance `resumed` from the same clocks when the mover was back, the
/// welcome shows the mover's time as the pause left it, and the record verifies.
async fn a_drained_instance_s_player_on_turn_is_charged_nothing(url: String) {
    const AWAY: Duration = Duration::from_secs(2);
    let Instances { one, two, _logs } = two_instances(&url).await;
    let nginx = Nginx::start([one.addr, two.addr]).await;
    let body =
        json!({"mode": "online", "side": "black", "clock": {"initial": 600, "increment": 0}});
    let (status, created) = http(nginx.addr, "POST", "/api/rooms", Some(body)).await;
    assert_eq!(status, 201, "{created}");
    let room = created["room"].as_str().unwrap().to_string();
    let joined = common::join_room(nginx.addr, &room).await;
    let mut black = Player::sit(nginx.addr, &room, &created).await;
    let white = Player::sit(nginx.addr, &room, &joined).await;
    // Black's first turn (its countdown began before it sat down) is played out: the mover at
    // the drain is white, connected since its turn began, with no countdown against it.
    common::play_turn(&mut black.client, "black").await;
    let joined_on = nginx.requests_for(&room, 1).await.remove(0).served_by;
    let (chosen, other) = if joined_on == one.addr.to_string() {
        (one, two)
    } else {
        (two, one)
    };
    let mut watcher = Client::join(other.addr, &room, None).await;
    let side = watcher.state["turn"].as_str().unwrap().to_string();
    assert_eq!(side, "white");
    let mut mover = white;
    let mover_clock = |clocks: &Value| clocks[&side].as_i64().unwrap();

    assert!(chosen.terminate().await.success());
    assert_eq!(mover.client.closed().await, Closed::Code(1012));
    tokio::time::sleep(AWAY).await;
    let back = Client::join(nginx.addr, &room, Some(&mover.token)).await;
    mover.client = back;
    let record = record(other.addr, &room).await;
    let paused = logged(&record, "paused");
    assert_eq!(paused.len(), 1, "{record}");
    let resumed = logged(&record, "resumed");
    assert_eq!(resumed.len(), 1, "{record}");
    assert_eq!(resumed[0]["d"]["clocks"], paused[0]["d"]["clocks"]);
    let away = resumed[0]["at"].as_i64().unwrap() - paused[0]["at"].as_i64().unwrap();
    assert!(away >= AWAY.as_millis() as i64, "paused for {away} ms only");
    // Away by the drain's doing, the mover gave its opponent no claim countdown.
    for presence in logged(&record, "presence") {
        assert!(presence["d"]["white"]["claim_at"].is_null(), "{presence}");
    }
    let clock = &mover.client.state["clock"];
    assert_eq!(clock["running"], side.as_str(), "{clock}");
    let charged = mover_clock(&paused[0]["d"]["clocks"]) - mover_clock(&clock["remaining"]);
    assert!(
        (0..500).contains(&charged),
        "charged {charged} ms for {away} ms away"
    );
    // The spectator saw the pause and the resumption, the clocks standing between them.
    watcher.wait_for("resumed").await;
    // `senet verify` recounts the clocks of a finished game.
    mover.client.ok("resign", Value::Null).await;
    verify_accepted(&common::record(other.addr, &room).await).await;
}

/// The rolling update of issue 32 in short: 20 timed games through the deployed nginx on two
/// instances, and each instance in turn drained (SIGTERM), awaited and replaced by a new process
/// on the same ports, as an orchestrator does. Every player whose socket closed takes its seat
/// again through nginx: no game is lost, every action it saw acknowledged is in its welcome,
/// and no player away on its own turn is charged for it (the load generator's count; a few
/// milliseconds between `resumed` and the welcome are the player's own).
async fn a_rolling_update_through_nginx_loses_nothing_and_charges_no_time(url: String) {
    const ROOMS: u64 = 20;
    let logs = tempfile::tempdir().unwrap();
    let log = |n: usize| logs.path().join(format!("{n}.log"));
    let flags = ["--presence-check", "1"];
    let one = ChildServer::start_url(&url, &log(1), &flags).await;
    let two = ChildServer::start_url(&url, &log(2), &flags).await;
    let nginx = Nginx::start([one.addr, two.addr]).await;
    let targets = vec![BaseUrl::parse(&format!("http://{}", nginx.addr)).unwrap()];
    let config = loadgen::Config {
        rooms: ROOMS as usize,
        rate: Some(40.0),
        per_connection_rate: Some(18.0),
        duration: Duration::from_secs(8),
        idle: false,
        connect_concurrency: 8,
        server_pid: None,
        source_addresses: 1,
        split_players: false,
        reconnect: true,
        rated: false,
        clock: Some(senet::protocol::TimeControl::fischer(600, 5)),
    };
    let (url_for_roll, logs_path) = (url.clone(), logs.path().to_path_buf());
    let roll = tokio::spawn(async move {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let metrics = [one.metrics_addr, two.metrics_addr];
        while open_sockets(metrics[0]).await + open_sockets(metrics[1]).await < 2 * ROOMS {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the rooms never opened"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
        let mut replaced = Vec::new();
        for (n, old) in [(1, one), (2, two)] {
            let addr = old.addr.to_string();
            assert!(old.terminate().await.success());
            let log = logs_path.join(format!("{n}-again.log"));
            let again = ChildServer::start_url_on(&addr, &url_for_roll, &log, &flags).await;
            replaced.push(again);
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        replaced
    });
    let report = loadgen::run_server(targets, &config).await;
    // The new instances took the old ones' ports (or they would not have started).
    let replaced = roll.await.unwrap();
    assert_eq!(replaced.len(), 2);
    assert_eq!(report.connections, 2 * ROOMS, "{report:?}");
    assert!(report.reconnects as u64 >= 2 * ROOMS, "{report:?}");
    assert_eq!(report.games_lost, 0, "{report:?}");
    assert_eq!(report.acknowledged_actions_lost, 0, "{report:?}");
    // What the players were charged, as the log says (the load generator's figure also counts
    // the moments between `resumed` and a welcome, which a loaded machine stretches): every
    // pause was resumed, from the clocks it stood at (or a move's after it, played before the
    // drain closed the socket).
    let mut db = PgConnection::connect(&url).await.unwrap();
    let clock_events: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT room, kind, data FROM events \
         WHERE kind IN ('paused', 'resumed', 'moved', 'passed') ORDER BY room, v",
    )
    .fetch_all(&mut db)
    .await
    .unwrap();
    let mut standing: Option<(&str, Value)> = None;
    let mut pauses = 0;
    for (room, kind, data) in &clock_events {
        let clocks = serde_json::from_str::<Value>(data).unwrap()["clocks"].clone();
        if let Some((paused_room, _)) = &standing {
            assert_eq!(paused_room, room, "a pause never resumed");
        }
        match kind.as_str() {
            "paused" => {
                assert!(standing.is_none(), "{room}: paused twice");
                pauses += 1;
                standing = Some((room, clocks));
            }
            "resumed" => {
                if let Some((_, stood)) = standing.take() {
                    assert_eq!(clocks, stood, "{room}: resumed from other clocks");
                }
            }
            _ => {
                if let Some((_, stood)) = &mut standing {
                    *stood = clocks;
                }
            }
        }
    }
    assert!(standing.is_none(), "a pause never resumed");
    assert!(pauses > 0, "no drain paused a clock: {report:?}");
}

postgres_support::postgres_tests!(
    a_load_run_across_two_instances_answers_every_action,
    a_load_run_survives_a_killed_instance,
    appends_are_heard_and_conflicts_are_not,
    appends_committed_together_are_each_heard,
    a_killed_listening_connection_resyncs_and_hears_again,
    a_listener_that_stops_hearing_reconnects_by_itself,
    presence_held_by_one_instance_is_seen_by_another_while_it_lives,
    an_instance_stopped_while_asking_for_a_clock_holds_up_no_other,
    players_on_two_instances_play_a_whole_game,
    simultaneous_actions_on_two_instances_never_fork_a_game,
    an_action_right_after_an_event_committed_elsewhere_is_judged_after_it,
    a_killed_instance_s_players_finish_on_the_other,
    spectators_count_on_every_live_instance,
    a_game_through_the_deployed_nginx_config,
    a_second_instance_gives_no_time_back_and_takes_over_the_clock,
    a_drained_instance_s_player_on_turn_is_charged_nothing,
    a_rolling_update_through_nginx_loses_nothing_and_charges_no_time,
);

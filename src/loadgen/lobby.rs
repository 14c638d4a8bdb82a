//! `senet loadgen --lobby-sockets N --rate R`: N lobby sockets (`/ws/lobby`) held open while
//! seeks are posted at R per second, each taken [`TAKE_AFTER`] after its post is answered. For
//! every seek and every socket it measures the time from sending the post to that socket
//! receiving the `changes` frame that adds the seek, and reports its percentiles over all
//! (seek, socket) pairs and over the seeks' last sockets (the time until the seek was on every
//! socket).
//!
//! With several `--url` targets (instances on one PostgreSQL), the sockets and the posts go to
//! them in turn, so a seek travels from the instance it was posted on to every other.
//!
//! A socket may hear of a seek before the post's answer names its room here; it keeps the time
//! and settles it when the answer arrives.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{StreamExt, stream};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use super::http::{BaseUrl, JsonClient};
use super::sample_memory;
use super::stats::Latency;

/// How long the sockets keep listening after the last post, for its frames to arrive.
const SETTLE: Duration = Duration::from_secs(2);
/// How long a seek stays open before it is taken. Longer than the lobby's flush interval: a
/// seek posted and taken within one interval is never sent, so there would be nothing to time.
const TAKE_AFTER: Duration = Duration::from_secs(1);

/// One lobby run's settings.
#[derive(Debug, Clone)]
pub struct LobbyLoad {
    pub sockets: usize,
    /// Seeks posted (and taken) per second.
    pub rate: f64,
    pub duration: Duration,
    pub connect_concurrency: usize,
    pub server_pid: Option<u32>,
}

/// The report printed as JSON.
#[derive(Debug, Serialize)]
pub struct LobbyReport {
    pub target: &'static str,
    pub sockets: usize,
    pub seconds: f64,
    pub seeks_posted: u64,
    pub seeks_taken: u64,
    /// Frames received on all sockets, of any kind after the first.
    pub frames: u64,
    /// Seeks added by `changes` frames, for the seeks posted in the run.
    pub deliveries: u64,
    /// (seek, socket) pairs that never arrived: sockets × posted − deliveries.
    pub missed: u64,
    pub errors: u64,
    pub error_kinds: HashMap<String, u64>,
    /// From sending the post to one socket receiving the seek, over every (seek, socket) pair.
    pub post_to_socket: Option<Latency>,
    /// From sending the post to the last socket receiving it, over the seeks all sockets got.
    pub post_to_every_socket: Option<Latency>,
    pub server_rss_mib: Option<f64>,
    pub server_rss_max_mib: Option<f64>,
}

/// When each posted seek's post was sent, by room, numbered in posting order.
#[derive(Default)]
struct Posted {
    by_room: HashMap<String, (usize, Instant)>,
}

/// What one socket heard: (seek number, microseconds) and those not yet settled.
#[derive(Default)]
struct Heard {
    frames: u64,
    latencies: Vec<(usize, u32)>,
    unsettled: Vec<(String, Instant)>,
}

impl Heard {
    fn settle(&mut self, posted: &Mutex<Posted>) {
        let posted = posted.lock().expect("never poisoned");
        self.unsettled
            .retain(|(room, at)| match posted.by_room.get(room) {
                Some(&(n, sent)) => {
                    let micros = at.saturating_duration_since(sent).as_micros();
                    self.latencies
                        .push((n, u32::try_from(micros).unwrap_or(u32::MAX)));
                    false
                }
                None => true,
            });
    }
}

/// Runs the lobby load against the servers at `targets`.
pub async fn run_lobby(targets: &[BaseUrl], load: &LobbyLoad) -> LobbyReport {
    let posted = Arc::new(Mutex::new(Posted::default()));
    let urls: Vec<String> = targets.iter().map(|base| base.ws("/ws/lobby")).collect();
    let connected: Vec<Result<_, String>> = stream::iter(0..load.sockets)
        .map(|n| connect(urls[n % urls.len()].clone()))
        .buffer_unordered(load.connect_concurrency.max(1))
        .collect()
        .await;
    let mut errors: HashMap<String, u64> = HashMap::new();
    let stop = CancellationToken::new();
    let mut listeners = JoinSet::new();
    let mut sockets = 0;
    for socket in connected {
        match socket {
            Ok(socket) => {
                sockets += 1;
                listeners.spawn(listen(socket, posted.clone(), stop.clone()));
            }
            Err(error) => *errors.entry(error).or_default() += 1,
        }
    }
    let memory = load
        .server_pid
        .map(|pid| tokio::spawn(sample_memory(pid, stop.clone())));
    let started = Instant::now();
    let clients: Vec<JsonClient> = targets
        .iter()
        .map(|base| JsonClient::new(base.clone(), None))
        .collect();
    let (seeks_posted, seeks_taken, post_errors) =
        post_and_take(&clients, load, posted.clone()).await;
    let seconds = started.elapsed().as_secs_f64();
    for (kind, count) in post_errors {
        *errors.entry(kind).or_default() += count;
    }
    tokio::time::sleep(SETTLE).await;
    stop.cancel();
    let (mut all, mut frames) = (Vec::new(), 0);
    while let Some(heard) = listeners.join_next().await {
        if let Ok(mut heard) = heard {
            heard.settle(&posted);
            frames += heard.frames;
            all.extend(heard.latencies);
        }
    }
    let (rss, rss_max) = match memory {
        Some(memory) => memory.await.unwrap_or_default(),
        None => (None, None),
    };
    let deliveries = all.len() as u64;
    let mut last: HashMap<usize, (usize, u32)> = HashMap::new();
    for &(n, micros) in &all {
        let entry = last.entry(n).or_insert((0, 0));
        *entry = (entry.0 + 1, entry.1.max(micros));
    }
    let mut every: Vec<u32> = last
        .values()
        .filter(|(count, _)| *count == sockets)
        .map(|&(_, micros)| micros)
        .collect();
    let mut pairs: Vec<u32> = all.into_iter().map(|(_, micros)| micros).collect();
    LobbyReport {
        target: "lobby",
        sockets,
        seconds,
        seeks_posted,
        seeks_taken,
        frames,
        deliveries,
        missed: (sockets as u64 * seeks_posted).saturating_sub(deliveries),
        errors: errors.values().sum(),
        error_kinds: errors,
        post_to_socket: Latency::of(&mut pairs),
        post_to_every_socket: Latency::of(&mut every),
        server_rss_mib: rss,
        server_rss_max_mib: rss_max,
    }
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(url: String) -> Result<Socket, String> {
    let (mut socket, _) = tokio_tungstenite::connect_async(url)
        .await
        .map_err(|e| format!("lobby connect: {e}"))?;
    // The first frame is the list as it is: nothing to time.
    socket.next().await;
    Ok(socket)
}

/// Reads one socket until `stop`, noting when each seek is added.
async fn listen(mut socket: Socket, posted: Arc<Mutex<Posted>>, stop: CancellationToken) -> Heard {
    let mut heard = Heard::default();
    loop {
        let message = tokio::select! {
            () = stop.cancelled() => break,
            message = socket.next() => message,
        };
        let Some(Ok(message)) = message else { break };
        let Message::Text(text) = message else {
            continue;
        };
        let at = Instant::now();
        heard.frames += 1;
        // Only frames that add seeks are timed; reading the start first skips the rest cheaply.
        if !text.starts_with(r#"{"t":"changes","d":{"added":[{"#) {
            continue;
        }
        let Ok(frame) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let added = frame["d"]["added"].as_array().into_iter().flatten();
        for room in added.filter_map(|seek| seek["room"].as_str()) {
            heard.unsettled.push((room.to_string(), at));
        }
        heard.settle(&posted);
    }
    let _ = socket.close(None).await;
    heard
}

/// Posts a seek every 1/rate seconds for the duration, each taken [`TAKE_AFTER`] after its post
/// is answered; returns (posted, taken, errors).
async fn post_and_take(
    clients: &[JsonClient],
    load: &LobbyLoad,
    posted: Arc<Mutex<Posted>>,
) -> (u64, u64, HashMap<String, u64>) {
    let mut every = tokio::time::interval(Duration::from_secs_f64(1.0 / load.rate));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let end = Instant::now() + load.duration;
    let mut tasks = JoinSet::new();
    let mut n = 0;
    while Instant::now() < end {
        every.tick().await;
        let (http, posted) = (clients[n % clients.len()].clone(), posted.clone());
        tasks.spawn(async move {
            let sent = Instant::now();
            let body = json!({"visitor": format!("loadgen {n}")}).to_string();
            let created: Value = http.post("/api/seeks", body).await?;
            let room = created["room"].as_str().unwrap_or_default().to_string();
            posted
                .lock()
                .expect("never poisoned")
                .by_room
                .insert(room.clone(), (n, sent));
            tokio::time::sleep(TAKE_AFTER).await;
            let path = format!("/api/seeks/{room}/take");
            http.post::<Value>(&path, "{}".into()).await.map(drop)
        });
        n += 1;
    }
    let (mut taken, mut errors) = (0, HashMap::new());
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(Ok(())) => taken += 1,
            Ok(Err(error)) => *errors.entry(error).or_default() += 1,
            Err(error) => *errors.entry(error.to_string()).or_default() += 1,
        }
    }
    let posted = posted.lock().expect("never poisoned").by_room.len() as u64;
    (posted, taken, errors)
}

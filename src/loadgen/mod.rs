//! `senet loadgen`: drives a running server with many rooms of scripted players (random legal
//! moves) and reports throughput, action-to-event latency and the server's memory; the same
//! clients can drive a bare WebSocket echo endpoint to measure the framework's own limit.
//!
//! - `wire`: the load generator's reading of the protocol.
//! - `conn`: one measured client connection (pacing, timing, version checks).
//! - `player`: rooms opened over HTTP and played by two clients each.
//! - `http`: the server's base URL and the JSON requests that open rooms.
//! - `echo`: the echo baseline.
//! - `lobby`: lobby sockets timed while seeks are posted and taken (`--lobby-sockets`).
//! - `stats`: tallies and the JSON report.
//! - `tournament`: a whole Arena or Swiss played by bots (`--tournament`), each a `bot`.

mod bot;
mod conn;
mod echo;
pub mod http;
mod lobby;
mod player;
mod stats;
mod tournament;
mod wire;

use std::collections::BTreeMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use futures_util::stream;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use conn::Pacing;
use http::{BaseUrl, JsonClient};
pub use lobby::{LobbyLoad, LobbyReport, run_lobby};
pub use stats::Report;
pub use tournament::{TournamentFormat, TournamentLoad, TournamentReport, run_tournament};

use crate::os;
use crate::protocol::TimeControl;
use player::Table;
use stats::Stats;

/// How often the server's resident memory is sampled during a run.
const RSS_EVERY: Duration = Duration::from_millis(500);

/// One run's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Rooms to open before the measured run starts (two connections each).
    pub rooms: usize,
    /// Total actions per second; `None` is as fast as answers come.
    pub rate: Option<f64>,
    /// At most this many frames per second on one connection.
    pub per_connection_rate: Option<f64>,
    pub duration: Duration,
    /// Hold the connections open without acting.
    pub idle: bool,
    /// Rooms being opened at once while setting up.
    pub connect_concurrency: usize,
    /// The server process, for its resident memory, CPU time and wake-ups.
    pub server_pid: Option<u32>,
    /// The rooms' time control; `None` plays untimed games.
    pub clock: Option<TimeControl>,
    /// Spread the rooms over this many loopback source addresses, 127.0.0.1 and up (all of
    /// 127.0.0.0/8 is the loopback interface on Linux): one address holds at most ~28,000
    /// connections to one server address (the ephemeral ports), and a proxy's per-client limits
    /// count each address apart. 1 leaves the choice to the system.
    pub source_addresses: u32,
    /// Put each room's two players on different targets (see `player::Table`).
    pub split_players: bool,
    /// A player whose socket closes takes its seat again through the next target.
    pub reconnect: bool,
    /// Every game rated, between two new players (see `player::Table::rated`).
    pub rated: bool,
}

impl Config {
    fn pacing(&self) -> Arc<Pacing> {
        Pacing::new(self.rate, self.per_connection_rate)
    }
}

/// Plays rooms on the servers at `targets` (one server, the instances of a cluster, or the
/// proxy in front of them), each new room on the next target in turn.
pub async fn run_server(targets: Vec<BaseUrl>, config: &Config) -> Report {
    let table = Table {
        clients: targets
            .into_iter()
            .map(|target| {
                sources(config.source_addresses)
                    .into_iter()
                    .map(|source| JsonClient::new(target.clone(), source))
                    .collect()
            })
            .collect(),
        rooms_opened: Default::default(),
        split_players: config.split_players,
        pacing: config.pacing(),
        idle: config.idle,
        clock: config.clock,
        reconnect: config.reconnect,
        rated: config.rated,
    };
    let opener = table.clone();
    run(
        "server",
        config,
        move || {
            let table = opener.clone();
            async move {
                let mut stats = Stats::default();
                (table.open_room(&mut stats).await, stats)
            }
        },
        move |players, phases| table.clone().run_room(players, phases),
    )
    .await
}

/// The local addresses to connect from: the system's choice, or `count` loopback addresses.
fn sources(count: u32) -> Vec<Option<IpAddr>> {
    if count <= 1 {
        return vec![None];
    }
    let first = u32::from(Ipv4Addr::LOCALHOST);
    (0..count)
        .map(|n| Some(Ipv4Addr::from(first + n).into()))
        .collect()
}

/// Runs the same load against an in-process echo endpoint.
pub async fn run_echo(config: &Config) -> std::io::Result<Report> {
    let server = echo::EchoServer::start()?;
    let url = server.url();
    let pacing = config.pacing();
    let idle = config.idle;
    let open_pacing = pacing.clone();
    let report = run(
        "echo",
        config,
        move || {
            let (url, pacing) = (url.clone(), open_pacing.clone());
            async move {
                let mut stats = Stats::default();
                (echo::open_pair(&url, &pacing, &mut stats).await, stats)
            }
        },
        move |pair, phases| echo::run_pair(pair, idle, phases),
    )
    .await;
    drop(server);
    Ok(report)
}

/// The two moments every room's task waits for: the run starts (every room is open), the run
/// stops.
#[derive(Debug, Clone, Default)]
pub struct Phases {
    pub start: CancellationToken,
    pub stop: CancellationToken,
}

/// The shape of every run: open the rooms (a bounded number at once), start the clock, let
/// every room play until the duration is up, then stop, collect, and report.
async fn run<R, Open, OpenFut, Play, PlayFut>(
    target: &'static str,
    config: &Config,
    open: Open,
    play: Play,
) -> Report
where
    R: Send + 'static,
    Open: Fn() -> OpenFut,
    OpenFut: Future<Output = (Result<R, String>, Stats)>,
    Play: Fn(R, Phases) -> PlayFut,
    PlayFut: Future<Output = Stats> + Send + 'static,
{
    // Each room's task starts as soon as it is open, so its sockets are read (the server's pings
    // answered) while the others open, which can take minutes for tens of thousands; it acts
    // once every room is open.
    let phases = Phases::default();
    let mut tasks = JoinSet::new();
    let mut setup = Stats::default();
    let mut opening = stream::iter(0..config.rooms)
        .map(|_| open())
        .buffer_unordered(config.connect_concurrency.max(1));
    while let Some((room, stats)) = opening.next().await {
        setup.merge(stats);
        match room {
            Ok(room) => {
                tasks.spawn(play(room, phases.clone()));
            }
            Err(error) => setup.error(error),
        }
    }
    let (room_count, connections) = (setup.rooms_opened, setup.connections_opened);

    let (start, stop) = (phases.start.clone(), phases.stop.clone());
    let started = Instant::now();
    start.cancel();
    let memory = config
        .server_pid
        .map(|pid| tokio::spawn(sample_memory(pid, stop.clone())));
    let work_before = config.server_pid.map(ServerWork::of);
    tokio::time::sleep(config.duration).await;
    let elapsed = started.elapsed();
    let work = work_before.zip(config.server_pid.map(ServerWork::of));
    stop.cancel();

    let mut total = setup;
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(stats) => total.merge(stats),
            Err(error) => total.error(format!("room task: {error}")),
        }
    }
    let mut report = Report::new(target, room_count, connections, elapsed, total);
    if let Some(memory) = memory
        && let Ok((last, max)) = memory.await
    {
        report.server_rss_mib = last;
        report.server_rss_max_mib = max;
    }
    if let Some((before, after)) = work {
        report.server_cpu_seconds = after
            .cpu
            .zip(before.cpu)
            .map(|(a, b)| a.saturating_sub(b).as_secs_f64());
        // Counted over the threads alive at each reading: one that ended takes its count away.
        report.server_context_switches = after
            .switches
            .zip(before.switches)
            .map(|(a, b)| a.saturating_sub(b));
        if let (Some(before), Some(after)) = (before.by_thread, after.by_thread) {
            report.server_cpu_us_per_action_by_thread =
                per_action(&before, &after, report.actions_answered);
        }
    }
    report
}

/// Each kind of thread's CPU between two readings, in microseconds per action.
fn per_action(
    before: &BTreeMap<String, Duration>,
    after: &BTreeMap<String, Duration>,
    actions: u64,
) -> BTreeMap<String, f64> {
    let actions = actions.max(1) as f64;
    after
        .iter()
        .map(|(kind, &cpu)| {
            let spent = cpu.saturating_sub(before.get(kind).copied().unwrap_or_default());
            (
                kind.clone(),
                (spent.as_secs_f64() * 1e6 / actions * 10.0).round() / 10.0,
            )
        })
        .collect()
}

/// What the server process has done so far: its CPU time and its threads' context switches
/// (read before and after the measured run: the difference is what the run cost it).
struct ServerWork {
    cpu: Option<Duration>,
    switches: Option<u64>,
    by_thread: Option<BTreeMap<String, Duration>>,
}

impl ServerWork {
    fn of(pid: u32) -> ServerWork {
        ServerWork {
            cpu: os::cpu_time(pid).ok(),
            switches: os::context_switches(pid).ok(),
            by_thread: os::cpu_time_by_thread(pid).ok(),
        }
    }
}

/// Samples a process's resident memory until `stop`: (the last sample, the highest), in MiB.
async fn sample_memory(pid: u32, stop: CancellationToken) -> (Option<f64>, Option<f64>) {
    let mut every = tokio::time::interval(RSS_EVERY);
    let (mut last, mut max) = (None, None::<f64>);
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = every.tick() => {}
        }
        if let Ok(bytes) = os::resident_memory_bytes(pid) {
            let mib = bytes as f64 / (1024.0 * 1024.0);
            last = Some(mib);
            max = Some(max.map_or(mib, |m| m.max(mib)));
        }
    }
    (last, max)
}

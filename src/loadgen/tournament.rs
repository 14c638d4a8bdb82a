//! `senet loadgen --tournament arena|swiss --players N`: a whole tournament played by N bots
//! (issue 45, item 7). It makes N players (`POST /api/me`, from `--source-addresses` loopback
//! addresses in turn: the server must let that many identities come from them, e.g.
//! `--identify-burst 0`), the first creates the tournament to start `--start-in` seconds later,
//! all join it, and each plays it as a `bot` until it is finished. The report gives, over all
//! the bots' games, the time from a game's end to the player's next pairing, next seat and
//! standings line counting it (p50/p99/max), the games and their action latency, and errors;
//! the rooms of the games finished are kept for `senet verify` (`--games-out`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use futures_util::{StreamExt, stream};
use serde::Serialize;
use serde_json::{Value, json};
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::bot::{self, Bot, Tally};
use super::conn::Pacing;
use super::http::{BaseUrl, JsonClient};
use super::player::{self, Table};
use super::stats::{Latency, Stats};
use super::{ServerWork, sample_memory, sources};
use crate::protocol::{TimeControl, UnixMs};

/// How many times a bot asks to join when the answer is not a success (another join was
/// appended first five times over: the server's own retries spent).
const JOIN_ATTEMPTS: usize = 5;
/// At most this many joins are asked at once.
const JOINS_AT_ONCE: usize = 4;
/// The pause before asking to join again, times the attempts so far.
const JOIN_PAUSE: Duration = Duration::from_millis(100);

/// The tournament's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TournamentFormat {
    Arena,
    Swiss,
}

/// One tournament run's settings.
#[derive(Debug, Clone)]
pub struct TournamentLoad {
    pub format: TournamentFormat,
    pub players: usize,
    /// An Arena's minutes (10–120).
    pub minutes: u32,
    /// A Swiss's rounds (3–11).
    pub rounds: u32,
    pub clock: TimeControl,
    pub rated: bool,
    /// From the creation to the start: the time the joins have.
    pub start_in: Duration,
    /// Stop this long after the start even if the tournament goes on.
    pub stop_after: Option<Duration>,
    /// The bots' pace: at most this many frames a second on a game's socket.
    pub per_connection_rate: Option<f64>,
    pub source_addresses: u32,
    pub connect_concurrency: usize,
    pub server_pid: Option<u32>,
}

/// The report printed as JSON.
#[derive(Debug, Serialize)]
pub struct TournamentReport {
    pub target: &'static str,
    pub format: TournamentFormat,
    pub tournament: Option<String>,
    pub players: usize,
    /// From the tournament's start to the last bot's end.
    pub seconds: f64,
    /// The tournament's status as the bots last saw it.
    pub status: String,
    /// Distinct games (rooms) played, and those seen to end by the rules.
    pub games: usize,
    pub games_finished: usize,
    /// Players' games that ended by the rules (each game counts twice, once a side).
    pub game_ends_seen: u64,
    /// Players' games that ended on time or by abandonment (timed all the same), or whose
    /// socket failed.
    pub games_lost: u64,
    pub actions_sent: u64,
    pub actions_answered: u64,
    pub action_latency: Option<Latency>,
    /// From a game's end (its `game-over` on the player's room socket) to the tournament
    /// socket showing the player's next game.
    pub end_to_pairing: Option<Latency>,
    pub end_to_pairing_samples: usize,
    /// ... to the next game's seat token (its room made: the player can sit).
    pub end_to_seat: Option<Latency>,
    /// ... to the player's standings line counting the game.
    pub end_to_standings: Option<Latency>,
    pub end_to_standings_samples: usize,
    /// A Swiss's rounds 2, 3, …: the shortest wait of any player for that round's pairing,
    /// i.e. from the previous round's last game's end to the round seen, in milliseconds.
    pub round_turnaround_ms: BTreeMap<u32, f64>,
    pub tournament_frames: u64,
    pub errors: u64,
    pub error_kinds: BTreeMap<String, u64>,
    pub server_cpu_seconds: Option<f64>,
    pub server_rss_mib: Option<f64>,
    pub server_rss_max_mib: Option<f64>,
    /// The rooms of the games finished, for `--games-out`.
    #[serde(skip)]
    pub rooms: Vec<String>,
}

/// Unix milliseconds now, as the server counts a tournament's start.
fn now_ms() -> UnixMs {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since_epoch.map_or(0, |d| {
        UnixMs::try_from(d.as_millis()).unwrap_or(UnixMs::MAX)
    })
}

/// Plays one tournament on the server at `target`.
pub async fn run_tournament(target: BaseUrl, load: &TournamentLoad) -> TournamentReport {
    let clients: Vec<JsonClient> = sources(load.source_addresses)
        .into_iter()
        .map(|source| JsonClient::new(target.clone(), source))
        .collect();
    let mut setup = Stats::default();
    let bots = make_players(&clients, load, &mut setup).await;
    let mut report = TournamentReport::empty(load);
    let Some(creator) = bots.first() else {
        return report.with_errors(setup);
    };
    let starts_at = now_ms() + load.start_in.as_millis() as i64;
    let id = match create(&clients[0], creator, load, starts_at).await {
        Ok(id) => id,
        Err(error) => {
            setup.error(error);
            return report.with_errors(setup);
        }
    };
    report.tournament = Some(id.clone());
    let bots = join_all(&clients, &id, bots, &mut setup).await;
    report.players = bots.len();
    let table = Table {
        clients: vec![clients.clone()].into(),
        rooms_opened: Default::default(),
        split_players: false,
        pacing: Pacing::new(None, load.per_connection_rate),
        idle: false,
        clock: Some(load.clock),
        reconnect: false,
        rated: load.rated,
    };
    let stop = CancellationToken::new();
    let url = target.ws(&format!("/ws/tournaments/{id}"));
    let mut tasks = JoinSet::new();
    for bot in bots {
        let source = clients[bot.number % clients.len()].source();
        let run = bot::run(table.clone(), url.clone(), source, bot, stop.clone());
        tasks.spawn(run);
    }
    let until_start = u64::try_from(starts_at - now_ms()).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(until_start)).await;
    let started = Instant::now();
    let memory = load
        .server_pid
        .map(|pid| tokio::spawn(sample_memory(pid, stop.clone())));
    let work_before = load.server_pid.map(ServerWork::of);
    if let Some(after) = load.stop_after {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(after).await;
            stop.cancel();
        });
    }
    let mut tallies = Vec::new();
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(tally) => tallies.push(tally),
            Err(error) => setup.error(format!("bot task: {error}")),
        }
    }
    report.seconds = started.elapsed().as_secs_f64();
    let work_after = load.server_pid.map(ServerWork::of);
    stop.cancel();
    if let Some(memory) = memory
        && let Ok((last, max)) = memory.await
    {
        (report.server_rss_mib, report.server_rss_max_mib) = (last, max);
    }
    report.server_cpu_seconds = work_before
        .zip(work_after)
        .and_then(|(before, after)| after.cpu.zip(before.cpu))
        .map(|(after, before)| after.saturating_sub(before).as_secs_f64());
    report.add(tallies, setup);
    report
}

/// A new player for each bot, from the source addresses in turn.
async fn make_players(
    clients: &[JsonClient],
    load: &TournamentLoad,
    setup: &mut Stats,
) -> Vec<Bot> {
    let made: Vec<(usize, Result<String, String>)> = stream::iter(0..load.players)
        .map(|number| async move {
            let client = &clients[number % clients.len()];
            (number, player::new_player(client).await)
        })
        .buffer_unordered(load.connect_concurrency.max(1))
        .collect()
        .await;
    let mut bots = Vec::new();
    for (number, secret) in made {
        match secret {
            Ok(secret) => bots.push(Bot { number, secret }),
            Err(error) => setup.error(format!("new player: {error}")),
        }
    }
    bots.sort_by_key(|bot| bot.number);
    bots
}

/// The first bot creates the tournament; its id.
async fn create(
    client: &JsonClient,
    creator: &Bot,
    load: &TournamentLoad,
    starts_at: UnixMs,
) -> Result<String, String> {
    let mut body = json!({
        "name": format!("Load {}", load.players),
        "clock": load.clock,
        "starts_at": starts_at,
        "rated": load.rated,
    });
    match load.format {
        TournamentFormat::Arena => {
            body["format"] = json!("arena");
            body["minutes"] = json!(load.minutes);
        }
        TournamentFormat::Swiss => {
            body["format"] = json!("swiss");
            body["rounds"] = json!(load.rounds);
        }
    }
    let secret = Some(creator.secret.clone());
    let created: Value =
        player::post(client, "/api/tournaments", body.to_string(), &secret).await?;
    created["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "POST /api/tournaments: no id".to_string())
}

/// Every bot joins (a few at once, each retried); the bots that did.
async fn join_all(clients: &[JsonClient], id: &str, bots: Vec<Bot>, setup: &mut Stats) -> Vec<Bot> {
    let path = format!("/api/tournaments/{id}/join");
    let joined: Vec<(Bot, Result<(), String>)> = stream::iter(bots)
        .map(|bot| {
            let (client, path) = (&clients[bot.number % clients.len()], &path);
            async move {
                let secret = Some(bot.secret.clone());
                let mut outcome = Ok(());
                for attempt in 0..JOIN_ATTEMPTS {
                    outcome = player::post::<Value>(client, path, "{}".into(), &secret)
                        .await
                        .map(drop);
                    if outcome.is_ok() {
                        break;
                    }
                    tokio::time::sleep(JOIN_PAUSE * (attempt as u32 + 1)).await;
                }
                (bot, outcome)
            }
        })
        .buffer_unordered(JOINS_AT_ONCE)
        .collect()
        .await;
    let mut bots = Vec::new();
    for (bot, outcome) in joined {
        match outcome {
            Ok(()) => bots.push(bot),
            Err(error) => setup.error(format!("join: {error}")),
        }
    }
    bots
}

impl TournamentReport {
    fn empty(load: &TournamentLoad) -> Self {
        TournamentReport {
            target: "tournament",
            format: load.format,
            tournament: None,
            players: 0,
            seconds: 0.0,
            status: String::new(),
            games: 0,
            games_finished: 0,
            game_ends_seen: 0,
            games_lost: 0,
            actions_sent: 0,
            actions_answered: 0,
            action_latency: None,
            end_to_pairing: None,
            end_to_pairing_samples: 0,
            end_to_seat: None,
            end_to_standings: None,
            end_to_standings_samples: 0,
            round_turnaround_ms: BTreeMap::new(),
            tournament_frames: 0,
            errors: 0,
            error_kinds: BTreeMap::new(),
            server_cpu_seconds: None,
            server_rss_mib: None,
            server_rss_max_mib: None,
            rooms: Vec::new(),
        }
    }

    fn with_errors(mut self, setup: Stats) -> Self {
        self.add(Vec::new(), setup);
        self
    }

    /// Adds the bots' tallies (and the setup's) to the report.
    fn add(&mut self, tallies: Vec<Tally>, mut total: Stats) {
        let (mut pairing, mut seat, mut standings) = (Vec::new(), Vec::new(), Vec::new());
        let (mut rooms, mut finished) = (BTreeSet::new(), BTreeSet::new());
        for tally in tallies {
            for (&us, &round) in tally.to_pairing_us.iter().zip(&tally.pairing_rounds) {
                let ms = f64::from(us) / 1000.0;
                let shortest = self.round_turnaround_ms.entry(round).or_insert(ms);
                *shortest = shortest.min(ms);
            }
            pairing.extend(tally.to_pairing_us);
            seat.extend(tally.to_seat_us);
            standings.extend(tally.to_standings_us);
            rooms.extend(tally.rooms);
            finished.extend(tally.finished);
            self.tournament_frames += tally.frames;
            if !tally.status.is_empty() {
                self.status = tally.status;
            }
            total.merge(tally.stats);
        }
        if self.format == TournamentFormat::Arena {
            self.round_turnaround_ms.clear();
        }
        self.end_to_pairing_samples = pairing.len();
        self.end_to_standings_samples = standings.len();
        self.end_to_pairing = Latency::of(&mut pairing);
        self.end_to_seat = Latency::of(&mut seat);
        self.end_to_standings = Latency::of(&mut standings);
        self.games = rooms.len();
        self.games_finished = finished.len();
        self.rooms = finished.into_iter().collect();
        self.game_ends_seen = total.games_finished;
        self.games_lost = total.games_lost;
        self.actions_sent = total.actions_sent;
        self.actions_answered = total.actions_answered;
        self.action_latency = Latency::of(&mut total.latencies_us);
        self.errors = total.errors.values().sum();
        self.error_kinds = total.errors;
    }
}

//! `senet loadgen --url URL[,URL...] --rooms N [--rate R] [--duration S] [--pid P] [--idle]
//! [--split-players] [--reconnect] [--rated] [--source-addresses K] [--clock INITIAL+INCREMENT] [--echo-baseline]`:
//! load a running server (or a cluster's instances, or the proxy in front of them) and print a
//! JSON report (see `crate::loadgen`); `--lobby-sockets N` measures the lobby instead, and
//! `--tournament arena|swiss --players N` plays a whole tournament with N bots
//! (`crate::loadgen::tournament`).

use std::time::Duration;

use serde_json::json;

use super::UsageError;
use crate::loadgen::http::BaseUrl;
use crate::loadgen::{self, Config};
use crate::os;
use crate::protocol::TimeControl;

/// `--clock 600+5`: a time control in seconds.
fn parse_clock(text: &str) -> Result<TimeControl, String> {
    let number = |part: &str| part.trim().parse::<u32>().ok();
    match text
        .split_once('+')
        .map(|(i, inc)| (number(i), number(inc)))
    {
        Some((Some(initial), Some(increment))) => Ok(TimeControl::fischer(initial, increment)),
        _ => Err(format!(
            "{text:?} is not <initial>+<increment> in seconds, e.g. 600+5"
        )),
    }
}

/// Play many rooms on a running server and report throughput, latency and memory.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The server's base URL; several (comma-separated or repeated) are a cluster's instances,
    /// each new room opened on the next in turn.
    #[arg(long, default_value = "http://127.0.0.1:8080", value_delimiter = ',', num_args = 1..)]
    url: Vec<String>,
    /// Seat each room's second player through the next URL, so every room spans two instances.
    #[arg(long)]
    split_players: bool,
    /// When a player's socket closes (its instance was stopped or killed), take the seat again
    /// through the next URL (or the same one, behind a proxy) and report how long it was away.
    #[arg(long)]
    reconnect: bool,
    /// Connect from this many loopback addresses (127.0.0.1, 127.0.0.2, ...): one source address
    /// holds at most ~28,000 connections to one server address (the ephemeral ports).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=65_535))]
    source_addresses: u32,
    /// Rooms to open (two WebSocket connections each).
    #[arg(long, default_value_t = 10)]
    rooms: usize,
    /// Total actions per second over all rooms; 0 holds the connections idle. Unpaced if absent.
    #[arg(long)]
    rate: Option<f64>,
    /// At most this many frames per second on one connection (the server closes connections
    /// above 20/s by default); 0 lifts the cap.
    #[arg(long, default_value_t = 18.0)]
    per_connection_rate: f64,
    /// Seconds to run once every room is open.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    /// The server's process id, to report its resident memory (VmRSS).
    #[arg(long)]
    pid: Option<u32>,
    /// Open the rooms and hold the connections without acting (same as --rate 0).
    #[arg(long)]
    idle: bool,
    /// Play timed games: `<initial>+<increment>` in seconds (e.g. `600+5`); untimed if absent.
    #[arg(long, value_parser = parse_clock)]
    clock: Option<TimeControl>,
    /// Make every game rated: each room is played by two new players (`POST /api/me`, their
    /// cookies on every request and socket), so no pair reaches the daily limit of rated games.
    /// The server must allow creating that many players (e.g. `--create-burst 0`).
    #[arg(long)]
    rated: bool,
    /// Rooms being opened at once during setup.
    #[arg(long, default_value_t = 64)]
    connect_concurrency: usize,
    /// Also run the same clients against a bare axum WebSocket echo endpoint in this process,
    /// and report the ratio of the server's actions per second to the echo's.
    #[arg(long)]
    echo_baseline: bool,
    /// Run only the echo baseline (no server needed).
    #[arg(long, conflicts_with = "echo_baseline")]
    echo_only: bool,
    /// Instead of rooms: hold this many lobby sockets open while seeks are posted and taken at
    /// --rate per second (default 50), and time each seek's way to every socket.
    #[arg(long, conflicts_with_all = ["echo_baseline", "echo_only", "idle"])]
    lobby_sockets: Option<usize>,
    /// Instead of rooms: create a tournament of this format, join --players bots to it (each a
    /// new player: the server must allow that many identities, e.g. `--identify-burst 0`), and
    /// play it to its end (or --stop-after); report the time from each game's end to the
    /// player's next pairing and to the standings counting it. Paced by --per-connection-rate,
    /// timed by --clock (default 180+2).
    #[arg(long, conflicts_with_all = ["echo_baseline", "echo_only", "idle", "lobby_sockets"])]
    tournament: Option<loadgen::TournamentFormat>,
    /// The tournament's bots.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u32).range(2..=1000))]
    players: u32,
    /// An Arena's minutes (10–120).
    #[arg(long, default_value_t = 10)]
    minutes: u32,
    /// A Swiss's rounds (3–11).
    #[arg(long, default_value_t = 7)]
    rounds: u32,
    /// Seconds from the tournament's creation to its start, for the bots to join.
    #[arg(long, default_value_t = 30.0)]
    start_in: f64,
    /// Stop the bots this many seconds after the start, even if the tournament goes on.
    #[arg(long)]
    stop_after: Option<f64>,
    /// Write the rooms of the tournament's finished games here, one a line (for `senet verify`).
    #[arg(long)]
    games_out: Option<std::path::PathBuf>,
}

/// The tournament mode's clock when none is given: 3 minutes + 2 s.
const TOURNAMENT_CLOCK: (u32, u32) = (180, 2);

fn seconds(what: &str, value: f64) -> Result<Duration, UsageError> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| UsageError(format!("{what} must be a number of seconds, not {value}")))
}

/// `--tournament`: one tournament played by bots; its JSON report.
fn run_tournament(args: &Args, format: loadgen::TournamentFormat) -> Result<(), UsageError> {
    let target = BaseUrl::parse(&args.url[0]).map_err(UsageError)?;
    let load = loadgen::TournamentLoad {
        format,
        players: args.players as usize,
        minutes: args.minutes,
        rounds: args.rounds,
        clock: args
            .clock
            .unwrap_or(TimeControl::fischer(TOURNAMENT_CLOCK.0, TOURNAMENT_CLOCK.1)),
        rated: args.rated,
        start_in: seconds("--start-in", args.start_in)?,
        stop_after: args
            .stop_after
            .map(|after| seconds("--stop-after", after))
            .transpose()?,
        per_connection_rate: Some(args.per_connection_rate).filter(|rate| *rate > 0.0),
        source_addresses: args.source_addresses,
        connect_concurrency: args.connect_concurrency,
        server_pid: args.pid,
    };
    let runtime = tokio::runtime::Runtime::new()?;
    let report = runtime.block_on(loadgen::run_tournament(target, &load));
    if let Some(path) = &args.games_out {
        std::fs::write(
            path,
            report
                .rooms
                .iter()
                .map(|room| format!("{room}\n"))
                .collect::<String>(),
        )
        .map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
    }
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

/// Files kept for everything that is not a connection (stdio, the runtime, HTTP requests).
const SPARE_FILES: u64 = 256;

/// Raises the open-file limit (each connection is a file; ten thousand need more than the usual
/// 1024) and refuses a run that could not open its connections anyway.
fn check_open_file_limit(args: &Args) -> Result<(), UsageError> {
    let limit = os::raise_fd_limit()
        .map_err(|e| UsageError(format!("raising the open-file limit: {e}")))?;
    let rooms = match (args.lobby_sockets, args.tournament) {
        // One file per lobby socket, counted as half a room.
        (Some(sockets), _) => (sockets as u64).div_ceil(2),
        // A bot holds its tournament socket and its game's: a room's worth.
        (None, Some(_)) => u64::from(args.players),
        (None, None) => args.rooms as u64,
    };
    // The echo endpoint runs in this process, so it holds the other end of each connection too.
    let per_room = if args.echo_baseline || args.echo_only {
        4
    } else {
        2
    };
    let needed = rooms * per_room + SPARE_FILES;
    if needed > limit {
        return Err(UsageError(format!(
            "{rooms} rooms need about {needed} open files here but the limit is {limit}{}",
            if per_room == 4 {
                " (the echo endpoint holds both ends in this process)"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

pub fn run(args: Args) -> Result<(), UsageError> {
    if !(args.duration > 0.0 && args.duration.is_finite()) {
        return Err(UsageError(
            "--duration must be a positive number of seconds".into(),
        ));
    }
    let targets = args
        .url
        .iter()
        .map(|url| BaseUrl::parse(url))
        .collect::<Result<Vec<_>, _>>()
        .map_err(UsageError)?;
    if args.split_players && targets.len() < 2 {
        return Err(UsageError(
            "--split-players needs at least two --url targets".into(),
        ));
    }
    let config = Config {
        rooms: args.rooms,
        rate: args.rate.filter(|rate| *rate > 0.0),
        per_connection_rate: Some(args.per_connection_rate).filter(|rate| *rate > 0.0),
        duration: Duration::from_secs_f64(args.duration),
        idle: args.idle || args.rate == Some(0.0),
        connect_concurrency: args.connect_concurrency,
        server_pid: args.pid,
        clock: args.clock,
        source_addresses: args.source_addresses,
        split_players: args.split_players,
        reconnect: args.reconnect,
        rated: args.rated,
    };
    check_open_file_limit(&args)?;
    if let Some(format) = args.tournament {
        return run_tournament(&args, format);
    }
    let runtime = tokio::runtime::Runtime::new()?;
    if let Some(sockets) = args.lobby_sockets {
        let load = loadgen::LobbyLoad {
            sockets,
            rate: args.rate.filter(|rate| *rate > 0.0).unwrap_or(50.0),
            duration: config.duration,
            connect_concurrency: args.connect_concurrency,
            server_pid: args.pid,
        };
        let report = runtime.block_on(loadgen::run_lobby(&targets, &load));
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let report = runtime.block_on(async {
        if args.echo_only {
            return loadgen::run_echo(&config).await.map(|echo| json!(echo));
        }
        let server = loadgen::run_server(targets, &config).await;
        if !args.echo_baseline {
            return Ok(json!(server));
        }
        let echo = loadgen::run_echo(&config).await?;
        let ratio =
            (echo.actions_per_sec > 0.0).then(|| server.actions_per_sec / echo.actions_per_sec);
        Ok(json!({"server": server, "echo": echo, "server_to_echo": ratio}))
    })?;
    println!("{}", serde_json::to_string_pretty(&report)?);
    Ok(())
}

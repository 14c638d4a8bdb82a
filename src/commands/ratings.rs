//! `senet ratings verify --database-url URL`: recomputes every rating from the event log and
//! compares it bit for bit with the stored ones ([`crate::players::replay`]), then the puzzle
//! ratings from the puzzle attempts ([`crate::players::puzzles::verify`]); exit 0 when all
//! agree, 1 with the first difference, 2 for a database it cannot read.
//!
//! `senet ratings simulate [--players N] [--games N] [--seed S]`: the calibration of
//! docs/RATINGS.md ([`crate::players::simulate`]), as JSON.

use std::process::ExitCode;

use serde_json::json;

use super::UsageError;
use skillratings::glicko2::Glicko2Rating;

use crate::players::puzzles;
use crate::players::rating::{self, Parameters};
use crate::players::replay::{Difference, GameLog, Replay};
use crate::players::simulate::{self, Plan};
use crate::players::store::{self as player_store, PlayerStore};
use crate::store::{self, RoomLog};

/// Ratings: recompute them from the log, or calibrate the rating system.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: RatingsCommand,
}

#[derive(Debug, clap::Subcommand)]
enum RatingsCommand {
    /// Replay every rated game from the event log; exit 1 at the first stored number that differs.
    Verify {
        /// The server's database (as `senet serve --database-url`).
        #[arg(long, env = "SENET_DATABASE_URL")]
        database_url: String,
    },
    /// Rate games between computer players of known strength; report calibration as JSON.
    Simulate {
        #[arg(long, default_value_t = 20)]
        players: usize,
        #[arg(long, default_value_t = 5_000)]
        games: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads for playing the games.
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// The days the games are spread over (idle time grows deviations).
        #[arg(long, default_value_t = 50)]
        days: u32,
        /// Other parameters than the server's, to compare (docs/RATINGS.md's sweep).
        #[command(flatten)]
        parameters: Sweep,
    },
}

/// Overrides of the server's rating parameters for a simulation (each defaults to the server's).
#[derive(Debug, clap::Args)]
struct Sweep {
    /// Starting deviation.
    #[arg(long)]
    start_deviation: Option<f64>,
    /// Starting volatility.
    #[arg(long)]
    volatility: Option<f64>,
    /// Glicko-2's τ.
    #[arg(long)]
    tau: Option<f64>,
    /// Deviation floor.
    #[arg(long)]
    min_deviation: Option<f64>,
    /// Idle time per missed rating period, in hours.
    #[arg(long)]
    idle_period_hours: Option<f64>,
}

impl Sweep {
    /// The server's parameters with these overrides.
    fn parameters(&self) -> Parameters {
        let server = rating::PARAMETERS;
        let overridden = self.start_deviation.is_some()
            || self.volatility.is_some()
            || self.tau.is_some()
            || self.min_deviation.is_some()
            || self.idle_period_hours.is_some();
        Parameters {
            name: if overridden {
                "overridden"
            } else {
                server.name
            },
            start: Glicko2Rating {
                deviation: self.start_deviation.unwrap_or(server.start.deviation),
                volatility: self.volatility.unwrap_or(server.start.volatility),
                ..server.start
            },
            tau: self.tau.unwrap_or(server.tau),
            min_deviation: self.min_deviation.unwrap_or(server.min_deviation),
            idle_period_ms: self
                .idle_period_hours
                .map_or(server.idle_period_ms, |hours| (hours * 3_600_000.0) as i64),
        }
    }
}

/// Rated games read per page.
const PAGE: u32 = 500;

pub fn run(args: Args) -> ExitCode {
    match args.command {
        RatingsCommand::Verify { database_url } => verify(&database_url),
        RatingsCommand::Simulate {
            players,
            games,
            seed,
            threads,
            days,
            parameters,
        } => {
            if players < 2 || games == 0 || days == 0 {
                eprintln!("senet: a simulation needs at least 2 players, 1 game and 1 day");
                return ExitCode::from(2);
            }
            let parameters = parameters.parameters();
            if parameters.idle_period_ms <= 0 {
                eprintln!("senet: --idle-period-hours must be positive");
                return ExitCode::from(2);
            }
            println!(
                "{}",
                simulate::run(Plan {
                    players,
                    games,
                    seed,
                    threads,
                    days,
                    parameters,
                })
            );
            ExitCode::SUCCESS
        }
    }
}

fn verify(url: &str) -> ExitCode {
    let outcome = tokio::runtime::Runtime::new()
        .map_err(UsageError::from)
        .and_then(|runtime| runtime.block_on(replay_all(url)));
    match outcome {
        Ok(Ok((replay, Ok(puzzles)))) => {
            println!(
                "{}",
                json!({
                    "consistent": true,
                    "games": replay.games,
                    "puzzle_attempts": puzzles.attempts,
                    "puzzle_players": puzzles.players,
                    "puzzles_rated": puzzles.puzzles,
                })
            );
            ExitCode::SUCCESS
        }
        Ok(Ok((_, Err(difference)))) => {
            println!(
                "{}",
                json!({"consistent": false, "puzzle_difference": difference.to_string()})
            );
            ExitCode::from(1)
        }
        Ok(Err(difference)) => {
            println!("{}", json!({"consistent": false, "difference": difference}));
            ExitCode::from(1)
        }
        Err(UsageError(message)) => {
            eprintln!("senet: {message}");
            ExitCode::from(2)
        }
    }
}

/// The games' ratings, then the puzzle ratings ([`puzzles::verify`]).
async fn replay_all(
    url: &str,
) -> Result<Result<(Replay, PuzzleCheck), Box<Difference>>, UsageError> {
    let rooms = store::open(url).await?;
    let players = player_store::open(url).await?;
    let mut replay = Replay::default();
    let mut after = 0;
    loop {
        let games = players.rated_games(after, PAGE).await?;
        let Some(last) = games.last() else { break };
        after = last.seq;
        for game in &games {
            let log = game_log(rooms.log.as_ref(), players.as_ref(), &game.room).await?;
            let stored = players.changes(game.seq).await?;
            if let Err(difference) = replay.game(game, &log, &stored) {
                return Ok(Err(difference));
            }
        }
    }
    let mut after = String::new();
    loop {
        let page = players.players_after(&after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id.clone();
        if let Some(difference) = page.iter().find_map(|row| replay.player(row).err()) {
            return Ok(Err(difference));
        }
    }
    let puzzles = puzzles::verify(&puzzles::PuzzleStore::open(url).await?).await?;
    Ok(Ok((replay, puzzles)))
}

type PuzzleCheck = Result<puzzles::Verified, puzzles::PuzzleDifference>;

async fn game_log(
    rooms: &dyn RoomLog,
    players: &dyn PlayerStore,
    room: &str,
) -> Result<GameLog, UsageError> {
    Ok(GameLog {
        mode: rooms.room(room).await?.map(|row| row.mode),
        players: players.room_players(room).await?,
        events: rooms.events_after(room, 0).await?,
    })
}

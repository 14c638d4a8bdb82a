//! `senet ratings verify --database-url URL`: recomputes every rating from the event log and
//! compares it bit for bit with the stored ones ([`crate::players::replay`]); exit 0 when all
//! agree, 1 with the first difference, 2 for a database it cannot read.
//!
//! `senet ratings simulate [--players N] [--games N] [--seed S]`: the calibration of
//! docs/RATINGS.md ([`crate::players::simulate`]), as JSON.

use std::process::ExitCode;

use serde_json::json;

use super::UsageError;
use crate::players::replay::{Difference, GameLog, Replay};
use crate::players::simulate::{self, Plan};
use crate::players::store::{self as player_store, PlayerStore};
use crate::store;

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
    },
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
        } => {
            if players < 2 || games == 0 {
                eprintln!("senet: a simulation needs at least 2 players and 1 game");
                return ExitCode::from(2);
            }
            println!(
                "{}",
                simulate::run(Plan {
                    players,
                    games,
                    seed,
                    threads
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
        Ok(Ok(replay)) => {
            println!("{}", json!({"consistent": true, "games": replay.games}));
            ExitCode::SUCCESS
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

async fn replay_all(url: &str) -> Result<Result<Replay, Box<Difference>>, UsageError> {
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
    Ok(Ok(replay))
}

async fn game_log(
    rooms: &dyn store::RoomLog,
    players: &dyn PlayerStore,
    room: &str,
) -> Result<GameLog, UsageError> {
    Ok(GameLog {
        mode: rooms.room(room).await?.map(|row| row.mode),
        players: players.room_players(room).await?,
        events: rooms.events_after(room, 0).await?,
    })
}

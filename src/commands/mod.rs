//! The command line: one file per subcommand. Each prints JSON on stdout;
//! bad input gives a one-line message on stderr and exit status 2.

mod admin;
mod admin_chat;
mod analyse;
mod backup;
mod bestmove;
mod calibration;
mod healthcheck;
mod legal;
mod loadgen;
mod migrate;
mod operator;
mod perft;
mod puzzles;
mod ratings;
mod selfplay;
mod serve;
mod tablebase;
mod tournament;
mod train;
mod verify;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

use crate::engine::{Position, Roll};

#[derive(Debug, Parser)]
#[command(
    name = "senet",
    version,
    about = "Kendall-style Senet: rules engine, AI and online server"
)]
pub struct Cli {
    /// An endgame tablebase (`senet tablebase build`): the computer, the analysis and the
    /// hint use its exact values where it covers a position. Without it they use the network.
    #[arg(long, env = "SENET_TABLEBASE", global = true)]
    tablebase: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Legal(legal::Args),
    Perft(perft::Args),
    /// Run the room server.
    Serve(Box<crate::server::config::Config>),
    /// Check a finished game's record: seed, every throw, every move.
    Verify(verify::Args),
    Bestmove(bestmove::Args),
    Analyse(analyse::Args),
    Selfplay(selfplay::Args),
    Train(train::Args),
    Calibration(calibration::Args),
    /// Exit 0 if a running server answers /healthz, else 1 (for container health checks).
    Healthcheck(healthcheck::Args),
    /// Play many rooms on a running server; report throughput, latency and memory as JSON.
    Loadgen(loadgen::Args),
    /// Copy a running server's SQLite database into a new file, consistently.
    Backup(backup::Args),
    /// Apply the migrations a start would (before replacing instances), or only list them
    /// (`--check`).
    Migrate(migrate::Args),
    /// Recompute every rating from the event log, or calibrate the rating system.
    Ratings(ratings::Args),
    /// Operator commands on the database: ban or lift, list bans, the audit log.
    Admin(admin::Args),
    /// Recompute a tournament from its log and its games' rooms.
    Tournament(tournament::Args),
    Tablebase(tablebase::Args),
    /// Mine puzzles from games, or check a puzzle set's answers.
    Puzzles(puzzles::Args),
}

impl Cli {
    /// Parses the process arguments. `--help` and `--version` print as
    /// usual; any other parse error is reduced to one line (clap's first
    /// paragraph, which says what is wrong) and exits with status 2, like
    /// every other bad input.
    pub fn parse_or_exit() -> Cli {
        Cli::try_parse().unwrap_or_else(|error| {
            if !error.use_stderr() {
                error.exit();
            }
            let message = match error.kind() {
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    "missing subcommand; see `senet --help`".to_string()
                }
                _ => first_paragraph(&error.render().to_string()),
            };
            eprintln!("senet: {message}");
            std::process::exit(2);
        })
    }

    pub fn run(self) -> ExitCode {
        if let Err(UsageError(message)) = self.install_tablebase() {
            eprintln!("senet: {message}");
            return ExitCode::from(2);
        }
        let result = match self.command {
            Command::Legal(args) => legal::run(args),
            Command::Perft(args) => perft::run(args),
            Command::Serve(config) => serve::run(*config),
            // Verify has its own exit statuses: 1 means an inconsistent record.
            Command::Verify(args) => return verify::run(args),
            Command::Bestmove(args) => bestmove::run(args),
            Command::Analyse(args) => analyse::run(args),
            Command::Selfplay(args) => selfplay::run(args),
            Command::Train(args) => train::run(args),
            Command::Calibration(args) => calibration::run(args),
            // Exit status 1 means "unhealthy" to the container runtime, not a usage error.
            Command::Healthcheck(args) => return healthcheck::run(args),
            Command::Loadgen(args) => loadgen::run(args),
            Command::Backup(args) => backup::run(args),
            // Exit status 1 means this binary cannot run on the database.
            Command::Migrate(args) => return migrate::run(args),
            // Verify's exit status 1 means a rating differs from the log.
            Command::Ratings(args) => return ratings::run(args),
            Command::Admin(args) => admin::run(args),
            // Verify's exit status 1 means the tournament differs from its recomputation.
            Command::Tournament(args) => return tournament::run(args),
            Command::Tablebase(args) => tablebase::run(args),
            Command::Puzzles(args) => puzzles::run(args),
        };
        match result {
            Ok(()) => ExitCode::SUCCESS,
            Err(UsageError(message)) => {
                eprintln!("senet: {message}");
                ExitCode::from(2)
            }
        }
    }
}

impl Cli {
    /// Loads `--tablebase` for the commands that ask the AI; a missing or
    /// damaged file is refused rather than silently played without.
    fn install_tablebase(&self) -> Result<(), UsageError> {
        let asks_the_ai = matches!(
            self.command,
            Command::Serve(_)
                | Command::Verify(_)
                | Command::Bestmove(_)
                | Command::Analyse(_)
                | Command::Selfplay(_)
                | Command::Puzzles(_)
        );
        match &self.tablebase {
            Some(path) if asks_the_ai => Ok(crate::ai::tablebase::install(
                crate::ai::Tablebase::load(path)?,
            )?),
            _ => Ok(()),
        }
    }
}

/// Bad input from the command line: printed on one line, exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(error: E) -> Self {
        UsageError(error.to_string())
    }
}

/// The first paragraph of a clap error, joined into one line.
fn first_paragraph(rendered: &str) -> String {
    let words: Vec<&str> = rendered
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .map(str::trim)
        .collect();
    words.join(" ").trim_start_matches("error: ").to_string()
}

/// Parses a position argument in the engine's notation.
fn parse_position(text: &str) -> Result<Position, UsageError> {
    text.parse()
        .map_err(|e| UsageError(format!("invalid position {text:?}: {e}")))
}

/// Parses a throw value argument, 1..=5.
fn parse_roll(text: &str) -> Result<Roll, UsageError> {
    text.parse::<u8>().ok().and_then(Roll::new).ok_or_else(|| {
        UsageError(format!(
            "invalid throw {text:?}: expected a number from 1 to 5"
        ))
    })
}

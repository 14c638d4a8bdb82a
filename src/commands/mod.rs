//! The command line: one file per subcommand. Each prints JSON on stdout;
//! bad input gives a one-line message on stderr and exit status 2.

mod healthcheck;
mod legal;
mod loadgen;
mod perft;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::engine::{Position, Roll};

#[derive(Debug, Parser)]
#[command(
    name = "senet",
    version,
    about = "Kendall-style Senet: rules engine, AI and online server"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Legal(legal::Args),
    Perft(perft::Args),
    Healthcheck(healthcheck::Args),
    Loadgen(loadgen::Args),
}

impl Cli {
    pub fn run(self) -> ExitCode {
        let result = match self.command {
            Command::Legal(args) => legal::run(args),
            Command::Perft(args) => perft::run(args),
            // Exit status 1 means "unhealthy" to the container runtime, not a usage error.
            Command::Healthcheck(args) => return healthcheck::run(args),
            Command::Loadgen(args) => loadgen::run(args),
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

/// Bad input from the command line: printed on one line, exit status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl<E: std::fmt::Display> From<E> for UsageError {
    fn from(error: E) -> Self {
        UsageError(error.to_string())
    }
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

//! The `senet` binary: every subcommand lives in `senet::commands`.

use std::process::ExitCode;

use clap::Parser;
use senet::commands::Cli;

fn main() -> ExitCode {
    Cli::parse().run()
}

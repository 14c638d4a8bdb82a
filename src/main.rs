//! The `senet` binary: every subcommand lives in `senet::commands`.

use std::process::ExitCode;

use senet::commands::Cli;

fn main() -> ExitCode {
    Cli::parse_or_exit().run()
}

//! `senet bestmove "<position>" <roll> [--level hard]`: the computer's move as
//! `{"from": 10}`, or `{"from": null}` when the throw has no legal move.
//!
//! With `--stdin` it reads one `<position> <roll>` per line and answers one
//! JSON line each, flushed at once, so a match program can play against it.
//! A bad line is answered with `{"error": "..."}` on stdout (so the program
//! stays in step, one answer per line) and the loop goes on.

use std::io::{BufRead, Write};

use serde_json::json;

use super::{UsageError, parse_position, parse_roll};
use crate::ai::{self, Config};

/// Print the move the computer would play.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position, e.g. "WBWBWBWBWB.................... b".
    #[arg(required_unless_present = "stdin")]
    position: Option<String>,
    /// The thrown value, 1 to 5.
    #[arg(required_unless_present = "stdin")]
    roll: Option<String>,
    /// Read "<position> <roll>" lines from standard input instead.
    #[arg(long, conflicts_with_all = ["position", "roll"])]
    stdin: bool,
    /// easy, medium, hard or hard-classic.
    #[arg(long, default_value = "hard")]
    level: String,
    /// The AI's own seed (breaks ties, drives easy's randomness).
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let level = ai::config_named(&args.level).ok_or_else(|| {
        UsageError(format!(
            "unknown level {:?}: expected easy, medium, hard or hard-classic",
            args.level
        ))
    })?;
    if args.stdin {
        return answer_lines(level, args.seed);
    }
    let (Some(position), Some(roll)) = (args.position, args.roll) else {
        return Err(UsageError(
            "expected a position and a throw, or --stdin".into(),
        ));
    };
    println!("{}", best_move_json(&position, &roll, level, args.seed)?);
    Ok(())
}

fn best_move_json(
    position: &str,
    roll: &str,
    level: Config,
    seed: u64,
) -> Result<serde_json::Value, UsageError> {
    let position = parse_position(position)?;
    let roll = parse_roll(roll)?;
    let from = ai::decide(&position, roll, &level, seed)
        .chosen
        .map(|mv| mv.from);
    Ok(json!({ "from": from }))
}

fn answer_lines(level: Config, seed: u64) -> Result<(), UsageError> {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line.map_err(|e| UsageError(format!("reading standard input: {e}")))?;
        let answer = match line.trim_end().rsplit_once(' ') {
            Some((position, roll)) => best_move_json(position, roll, level, seed)
                .unwrap_or_else(|UsageError(message)| json!({ "error": message })),
            None => json!({ "error": format!("expected \"<position> <roll>\", got {line:?}") }),
        };
        writeln!(stdout, "{answer}")
            .and_then(|()| stdout.flush())
            .map_err(|e| UsageError(format!("writing standard output: {e}")))?;
    }
    Ok(())
}

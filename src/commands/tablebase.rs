//! `senet tablebase build|probe|network`: solves the endgame table, looks
//! one position up in it, or measures the network against it
//! (`ai::tablebase`; docs/AI.md has the figures).

use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use super::{UsageError, parse_position};
use crate::ai::net;
use crate::ai::tablebase::{MAX_PIECES, Tablebase};
use crate::engine::Roll;

/// Build, probe or measure against the endgame tablebase.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Solve every position with at most K pieces a side on the board and write the file.
    Build {
        /// K, 1 to 3; 3 is the documented table (about 1 minute of CPU, 49 MB).
        #[arg(long, default_value_t = MAX_PIECES)]
        pieces: u8,
        /// Where to write the table (atomically: a temporary file, then a rename).
        #[arg(long)]
        out: PathBuf,
    },
    /// The exact chance of one position, before the throw and after each throw value.
    Probe {
        file: PathBuf,
        /// The position, e.g. "..........................B..W b".
        position: String,
    },
    /// The shipped network's error against every value in the table, by pieces on the board.
    Network { file: PathBuf },
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let report = match args.action {
        Action::Build { pieces, out } => build(pieces, &out)?,
        Action::Probe { file, position } => probe(&load(&file)?, &position)?,
        Action::Network { file } => network(&load(&file)?),
    };
    println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
    Ok(())
}

fn load(file: &std::path::Path) -> Result<Tablebase, UsageError> {
    Ok(Tablebase::load(file)?)
}

fn build(pieces: u8, out: &std::path::Path) -> Result<serde_json::Value, UsageError> {
    if !(1..=MAX_PIECES).contains(&pieces) {
        return Err(UsageError(format!(
            "--pieces must be from 1 to {MAX_PIECES}, not {pieces}"
        )));
    }
    let started = Instant::now();
    let built = Tablebase::build(pieces);
    let solved = started.elapsed().as_secs_f64();
    let sha256 = built.table.save(out)?;
    Ok(json!({
        "pieces": pieces,
        "positions": built.table.len(),
        "sweeps": built.sweeps,
        "last_change": built.last_change,
        "solve_seconds": (solved * 10.0).round() / 10.0,
        "total_seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "file": out,
        "bytes": std::fs::metadata(out).map(|m| m.len()).unwrap_or(0),
        "sha256": sha256,
    }))
}

fn probe(table: &Tablebase, text: &str) -> Result<serde_json::Value, UsageError> {
    let position = parse_position(text)?;
    let Some(before) = table.value(&position) else {
        return Err(UsageError(format!(
            "{text:?} is not in the table: the game is over or a side has more than {} pieces on the board",
            table.pieces()
        )));
    };
    let throws: Vec<_> = Roll::ALL
        .into_iter()
        .map(|roll| {
            let moves: Vec<_> = position
                .legal_moves(roll)
                .iter()
                .map(|mv| json!({ "from": mv.from, "chance": table.after(&position, mv) }))
                .collect();
            let best = position
                .legal_moves(roll)
                .iter()
                .map(|mv| (mv.from, table.after(&position, mv)))
                .fold(None, |best: Option<(u8, f64)>, (from, p)| match best {
                    Some((_, q)) if q >= p => best,
                    _ => Some((from, p)),
                });
            json!({
                "throw": roll.value(),
                "best": best.map(|(from, _)| from),
                "chance": table.after_throw(&position, roll),
                "moves": moves,
            })
        })
        .collect();
    Ok(json!({
        "position": position.to_string(),
        "to_move": position.turn(),
        "chance": before,
        "throws": throws,
    }))
}

fn network(table: &Tablebase) -> serde_json::Value {
    let started = Instant::now();
    let rows = table.errors(|position| f64::from(net::TRAINED.evaluate(position)));
    json!({
        "pieces": table.pieces(),
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "by_pieces": rows,
    })
}

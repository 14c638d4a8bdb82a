//! `senet train --games N --seed S --out path`: trains the win-probability
//! network by self-play (see `ai::train`) and writes its weights file. The
//! shipped `src/ai/weights.bin` was made by this command with the arguments
//! in docs/AI.md; the same arguments give the same bytes.

use std::time::Instant;

use serde_json::json;

use super::UsageError;
use crate::ai::train::train;

/// Train the win-probability network by self-play and write its weights.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Self-play games to learn from.
    #[arg(long)]
    games: usize,
    /// Seed for the starting weights and every throw.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the weights (e.g. src/ai/weights.bin).
    #[arg(long)]
    out: std::path::PathBuf,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let started = Instant::now();
    let step = (args.games / 10).max(1);
    let net = train(args.games, args.seed, |game| {
        if game % step == 0 {
            eprintln!("senet train: {game} of {} games", args.games);
        }
    });
    std::fs::write(&args.out, net.to_bytes())
        .map_err(|e| UsageError(format!("writing {}: {e}", args.out.display())))?;
    println!(
        "{}",
        json!({
            "games": args.games,
            "seed": args.seed,
            "out": args.out,
            "seconds": started.elapsed().as_secs_f64(),
        })
    );
    Ok(())
}

//! `senet calibration --games N --seed S [--svg docs/calibration.svg]`:
//! measures how well the shipped network's win probabilities match the
//! outcomes of fresh self-play games (`ai::calibration`), prints the table
//! per tenth of prediction as JSON and draws the reliability diagram.

use serde_json::json;

use super::UsageError;
use crate::ai::calibration::{calibrate, reliability_svg};

/// Compare the network's predictions with the outcomes of new self-play games.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Self-play games to measure on.
    #[arg(long, default_value_t = 10_000)]
    games: u64,
    /// Seed for the games' throws (any seed: the games are new).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Where to write the reliability diagram.
    #[arg(long, default_value = "docs/calibration.svg")]
    svg: std::path::PathBuf,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    if args.games == 0 {
        return Err(UsageError("--games must be at least 1".into()));
    }
    let bins = calibrate(args.games, args.seed);
    let caption = format!(
        "Calibration: {} self-play games (seed {}), every position",
        args.games, args.seed
    );
    std::fs::write(&args.svg, reliability_svg(&bins, &caption))
        .map_err(|e| UsageError(format!("writing {}: {e}", args.svg.display())))?;
    let percent = |p: f64| (p * 1e3).round() / 10.0;
    let rows: Vec<_> = bins
        .iter()
        .map(|bin| {
            json!({
                "decile": format!("{}-{}%", percent(bin.lower), percent(bin.lower + 0.1)),
                "positions": bin.positions,
                "predicted": percent(bin.predicted),
                "observed": percent(bin.observed),
                "gap": percent(bin.observed - bin.predicted),
            })
        })
        .collect();
    let worst = bins
        .iter()
        .filter(|bin| bin.positions > 0)
        .map(|bin| (bin.observed - bin.predicted).abs())
        .fold(0.0, f64::max);
    println!(
        "{}",
        serde_json::to_string_pretty(&json!({
            "games": args.games,
            "seed": args.seed,
            "deciles": rows,
            "largest_gap_points": percent(worst),
            "within_3_points": worst <= 0.03,
            "svg": args.svg,
        }))
        .expect("JSON")
    );
    Ok(())
}

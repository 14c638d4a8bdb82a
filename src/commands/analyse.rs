//! `senet analyse <record.json>`: the engine's verdict on a game record (as
//! served by `GET /api/rooms/{id}/record`), throw by throw, as JSON. See
//! `analysis` for what each field means and docs/AI.md for the labels.

use super::UsageError;
use crate::analysis::analyse;
use crate::protocol::Record;

/// Print the win probability around every throw of a game and label each move.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The record, as JSON (`GET /api/rooms/{id}/record`).
    record: std::path::PathBuf,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let text = std::fs::read_to_string(&args.record)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", args.record.display())))?;
    let record: Record =
        serde_json::from_str(&text).map_err(|e| UsageError(format!("not a game record: {e}")))?;
    let analysis = analyse(&record)?;
    println!(
        "{}",
        serde_json::to_string_pretty(&analysis).expect("an analysis serializes")
    );
    Ok(())
}

//! `senet perft "<position>" <depth>`: leaves of the throw-and-move tree.

use serde_json::json;

use super::{UsageError, parse_position};
use crate::engine::perft::perft;

/// Count the leaves of the game tree below a position.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position, e.g. "WBWBWBWBWB.................... b".
    position: String,
    /// Plies to search; each ply is a throw followed by a move or a pass.
    depth: u32,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let position = parse_position(&args.position)?;
    println!("{}", json!(perft(&position, args.depth)));
    Ok(())
}

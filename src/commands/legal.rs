//! `senet legal "<position>" <roll>`: every legal move, ordered by `from`.

use serde_json::json;

use super::{UsageError, parse_position, parse_roll};
use crate::engine::Target;

/// List every legal move of a position for one throw.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position, e.g. "WBWBWBWBWB.................... b".
    position: String,
    /// The thrown value, 1 to 5.
    roll: String,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let position = parse_position(&args.position)?;
    let roll = parse_roll(&args.roll)?;
    let moves: Vec<_> = position
        .legal_moves(roll)
        .iter()
        .map(|mv| {
            let to = match mv.to {
                Target::Square(square) => json!(square),
                Target::Off => json!("off"),
            };
            json!({"from": mv.from, "to": to, "after": position.after(mv).to_string()})
        })
        .collect();
    println!("{}", serde_json::Value::Array(moves));
    Ok(())
}

//! `senet legal "<position>" <roll>`: every legal move, ordered by `from`.

use serde::Serialize;

use super::{UsageError, parse_position, parse_roll};
use crate::engine::{Move, Position, Target};

/// List every legal move of a position for one throw.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The position, e.g. "WBWBWBWBWB.................... b".
    position: String,
    /// The thrown value, 1 to 5.
    roll: String,
}

/// One move as printed. A struct (not `json!`) so the keys keep the
/// documented order: from, to, after.
#[derive(Serialize)]
struct LegalMove {
    from: u8,
    to: Landing,
    after: String,
}

/// `to` is the square landed on by count (27 for the water) or `"off"`.
#[derive(Serialize)]
#[serde(untagged)]
enum Landing {
    Square(u8),
    Off(&'static str),
}

impl LegalMove {
    fn new(position: &Position, mv: &Move) -> LegalMove {
        let to = match mv.to {
            Target::Square(square) => Landing::Square(square),
            Target::Off => Landing::Off("off"),
        };
        LegalMove {
            from: mv.from,
            to,
            after: position.after(mv).to_string(),
        }
    }
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let position = parse_position(&args.position)?;
    let roll = parse_roll(&args.roll)?;
    let moves: Vec<LegalMove> = position
        .legal_moves(roll)
        .iter()
        .map(|mv| LegalMove::new(&position, mv))
        .collect();
    println!("{}", serde_json::to_string(&moves)?);
    Ok(())
}

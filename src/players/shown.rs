//! Players as the wire shows them ([`crate::protocol::players`]): ratings rounded, the
//! provisional mark, the generated name of an unnamed player, a deleted one's placeholder.

use skillratings::glicko2::Glicko2Rating;

use super::model::{self, PlayerRow};
use super::name::generated_name;
use super::rating::is_provisional;
use crate::protocol::players::{Change, Player, PlayerRef};
use crate::protocol::{BeforeAfter, RatingChanges};

/// The name shown for a deleted player (the pages translate it).
pub const DELETED_NAME: &str = "deleted player";

/// A player beside a board, a seek or a game in a list.
pub fn player_ref(row: &PlayerRow) -> PlayerRef {
    let name = match (&row.name, row.deleted_at) {
        (_, Some(_)) => DELETED_NAME.to_owned(),
        (Some(name), None) => name.clone(),
        (None, None) => generated_name(&row.id),
    };
    PlayerRef {
        id: row.id.clone(),
        name,
        named: row.name.is_some(),
        deleted: row.deleted_at.is_some(),
        rating: row.standing.rating.rating.round() as i64,
        provisional: is_provisional(&row.standing.rating),
    }
}

/// A whole player, as `/api/me` and the player pages show them.
pub fn player(row: &PlayerRow) -> Player {
    Player {
        player: player_ref(row),
        deviation: row.standing.rating.deviation.round() as i64,
        volatility: row.standing.rating.volatility,
        wins: row.wins,
        losses: row.losses,
        draws: row.draws,
        renamed_at: row.named_at,
    }
}

/// A rating as shown before or after a game.
pub fn change(rating: &Glicko2Rating) -> Change {
    Change {
        rating: rating.rating.round() as i64,
        deviation: rating.deviation.round() as i64,
        provisional: is_provisional(rating),
    }
}

/// A rated game's changes to both players (black's first), as the `rated` frame and a
/// finished game's state show them.
pub fn changes([black, white]: &[model::Change; 2]) -> RatingChanges {
    let shown = |game: &model::Change| BeforeAfter {
        before: change(&game.before),
        after: change(&game.after),
    };
    RatingChanges {
        black: shown(black),
        white: shown(white),
    }
}

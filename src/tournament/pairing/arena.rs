//! An Arena's pairing of its waiting pool, as lichess's Arena does it (docs/TOURNAMENTS.md,
//! "Arena pairing"): one maximum-weight matching over the players waiting right now, pairing
//! as many as possible, then by nearness of standing and rating, the longest-waiting first,
//! and never two who just played each other while another pairing exists.

use super::matching::{self, Edge};
use super::{Board, PairingError, check_players};

/// A player in the pool (not playing, not paused).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArenaWaiting {
    /// The player's number in the tournament.
    pub id: u32,
    /// Their place in the standings now (0 is first).
    pub rank: u32,
    pub rating: i32,
    /// Whom they played last.
    pub last_opponent: Option<u32>,
    /// How long they have waited, in milliseconds (since joining, resuming or their last game).
    pub waited_ms: u64,
    /// Blacks minus whites played.
    pub colour_balance: i32,
}

// A rematch costs more than any sum of nearness and waiting can win back.
const REMATCH: i128 = 1_000_000_000_000;
const BIG: i128 = 1_000_000_000_000_000;
/// One place of standing weighs as much as this many rating points.
const RANK_WEIGHT: i128 = 20;
/// A second of waiting is worth this many rating points of nearness, up to `MAX_WAIT_S`.
const WAIT_WEIGHT: i128 = 10;
const MAX_WAIT_S: u64 = 600;

/// The boards to start now from the waiting pool; with an odd pool the one left waits.
/// Deterministic: the result depends on the pool, not on its order.
pub fn pair_pool(pool: &[ArenaWaiting]) -> Result<Vec<Board>, PairingError> {
    check_players(pool.iter().map(|p| p.id))?;
    let mut pool: Vec<&ArenaWaiting> = pool.iter().collect();
    pool.sort_by_key(|p| p.id);
    let mut edges: Vec<Edge> = Vec::new();
    for a in 0..pool.len() {
        for b in a + 1..pool.len() {
            edges.push((a, b, weight(pool[a], pool[b])));
        }
    }
    let mate = matching::max_weight_matching(pool.len(), &edges, true);
    let mut boards: Vec<Board> = matching::pairs(&mate)
        .into_iter()
        .map(|(a, b)| colours(pool[a], pool[b]))
        .collect();
    boards.sort_by_key(|board| (board.black.min(board.white), board.black));
    Ok(boards)
}

fn weight(a: &ArenaWaiting, b: &ArenaWaiting) -> i128 {
    let rematch = a.last_opponent == Some(b.id) || b.last_opponent == Some(a.id);
    let nearness =
        RANK_WEIGHT * i128::from(a.rank.abs_diff(b.rank)) + i128::from(a.rating.abs_diff(b.rating));
    let waited = |p: &ArenaWaiting| i128::from((p.waited_ms / 1000).min(MAX_WAIT_S));
    BIG - REMATCH * i128::from(rematch) - nearness + WAIT_WEIGHT * (waited(a) + waited(b))
}

/// Black to whoever has played black less; on a tie, to the lower-ranked player (the higher
/// rank's small edge of moving second is its reward), then to the lower number.
fn colours(a: &ArenaWaiting, b: &ArenaWaiting) -> Board {
    let a_black = (a.colour_balance, std::cmp::Reverse(a.rank), a.id)
        < (b.colour_balance, std::cmp::Reverse(b.rank), b.id);
    match a_black {
        true => Board {
            black: a.id,
            white: b.id,
        },
        false => Board {
            black: b.id,
            white: a.id,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(id: u32, rank: u32, last_opponent: Option<u32>) -> ArenaWaiting {
        ArenaWaiting {
            id,
            rank,
            rating: 1500,
            last_opponent,
            ..ArenaWaiting::default()
        }
    }

    #[test]
    fn neighbours_in_the_standings_meet() {
        let pool = [
            waiting(1, 0, None),
            waiting(2, 3, None),
            waiting(3, 1, None),
            waiting(4, 2, None),
        ];
        let boards = pair_pool(&pool).unwrap();
        let pairs: Vec<_> = boards
            .iter()
            .map(|b| (b.black.min(b.white), b.black.max(b.white)))
            .collect();
        assert_eq!(pairs, vec![(1, 3), (2, 4)]);
    }

    #[test]
    fn the_last_opponent_is_avoided_when_anyone_else_waits() {
        let pool = [
            waiting(1, 0, Some(2)),
            waiting(2, 1, Some(1)),
            waiting(3, 9, None),
        ];
        let boards = pair_pool(&pool).unwrap();
        assert_eq!(boards.len(), 1);
        assert!(boards[0].black == 3 || boards[0].white == 3, "{boards:?}");
        // Alone together, they play again.
        assert_eq!(pair_pool(&pool[..2]).unwrap().len(), 1);
    }

    #[test]
    fn with_an_odd_pool_the_latest_to_arrive_waits() {
        let mut pool = [
            waiting(1, 0, None),
            waiting(2, 1, None),
            waiting(3, 2, None),
        ];
        pool[0].waited_ms = 30_000;
        pool[2].waited_ms = 30_000;
        let boards = pair_pool(&pool).unwrap();
        assert_eq!(boards, vec![Board { black: 3, white: 1 }]);
    }

    #[test]
    fn the_order_of_the_pool_does_not_matter() {
        let pool: Vec<_> = (1..=7).map(|id| waiting(id, (id * 5) % 7, None)).collect();
        let mut reversed = pool.clone();
        reversed.reverse();
        assert_eq!(pair_pool(&pool), pair_pool(&reversed));
    }
}

//! A Swiss round: every player paired, by score groups, after the FIDE Dutch system's
//! criteria in a simpler form (docs/TOURNAMENTS.md, "Swiss pairing"). The criteria become one
//! cost per possible pair, in strictly decreasing priority, so that a single minimum-cost
//! perfect matching (a maximum-weight one over `BIG - cost`) weighs them lexicographically:
//!
//! 1. a repeated pair (only when no pairing without one exists);
//! 2. the bye: to the lowest-ranked player without one (an extra vertex, when the count is odd);
//! 3. a colour neither player may take (the same colour three times running, or two more of
//!    one than of the other);
//! 4. the score difference, squared (players meet within their score group where possible);
//! 5. a colour preference left unmet;
//! 6. within a score group, top half against bottom half in order (1 v n/2+1, …).
//!
//! Each level's multiplier exceeds the largest sum the levels below it can reach over a
//! round of [`MAX_PLAYERS`], so no number of lesser costs outweighs a greater one.

use std::cmp::Reverse;

use super::matching::{self, Edge};
use super::{Board, Colour, MAX_PLAYERS, PairingError, check_players};

/// A player as the next round's pairing sees them (a withdrawn player is not passed).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwissPlayer {
    /// The player's number in the tournament; breaks ties of score and rating.
    pub id: u32,
    pub rating: i32,
    /// Points in half-points: a win 2, a draw 1, a bye 2.
    pub score: u32,
    /// The opponents met so far.
    pub opponents: Vec<u32>,
    /// The colours played, in order (a bye plays none).
    pub colours: Vec<Colour>,
    pub had_bye: bool,
}

/// A round's pairing: its boards in rank order of their higher-ranked player, and the bye.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SwissRound {
    pub boards: Vec<Board>,
    pub bye: Option<u32>,
}

// The cost levels (see the module doc), each above the most the levels below can sum to over
// MAX_PLAYERS / 2 + 1 boards: rank ≤ 2,000 a board, soft colour ≤ 2, score ≤ 10,000,
// hard colour ≤ 1, bye ≤ 3,000 (one board), repeat ≤ 1.
const RANK: i128 = 1;
const SOFT_COLOUR: i128 = 10_000_000;
const SCORE: i128 = 100_000_000_000;
const HARD_COLOUR: i128 = 1_000_000_000_000_000_000;
const BYE: i128 = 1_000_000_000_000_000_000_000;
const REPEAT: i128 = 10_000_000_000_000_000_000_000_000;
const BIG: i128 = 10_000_000_000_000_000_000_000_000_000;
const MAX_SCORE_COST: i128 = 10_000;

/// Pairs a round. Deterministic: the result depends on the players, not on their order.
pub fn pair_round(players: &[SwissPlayer]) -> Result<SwissRound, PairingError> {
    check_players(players.iter().map(|p| p.id))?;
    let ranked = ranked(players);
    let n = ranked.len();
    let groups = score_groups(&ranked);
    let mut edges: Vec<Edge> = Vec::with_capacity(n * n / 2 + n);
    for a in 0..n {
        for b in a + 1..n {
            let cost = pair_cost(&ranked, &groups, a, b);
            edges.push((a, b, BIG - cost));
        }
    }
    let bye_vertex = (n % 2 == 1).then_some(n);
    if let Some(bye) = bye_vertex {
        edges.extend((0..n).map(|a| (a, bye, BIG - bye_cost(&ranked, a))));
    }
    let mate = matching::max_weight_matching(n + bye_vertex.iter().len(), &edges, true);
    let mut round = SwissRound::default();
    for (a, b) in matching::pairs(&mate) {
        if Some(b) == bye_vertex {
            round.bye = Some(ranked[a].id);
        } else {
            let board = round.boards.len();
            round.boards.push(allocate(ranked[a], ranked[b], board));
        }
    }
    debug_assert_eq!(round.boards.len() * 2 + round.bye.iter().len(), n);
    Ok(round)
}

/// The players in rank order: score, then rating (both highest first), then number.
pub fn ranked(players: &[SwissPlayer]) -> Vec<&SwissPlayer> {
    let mut ranked: Vec<&SwissPlayer> = players.iter().collect();
    ranked.sort_by_key(|p| (Reverse(p.score), Reverse(p.rating), p.id));
    ranked
}

/// For each ranked player, (their position in their score group, the group's size).
fn score_groups(ranked: &[&SwissPlayer]) -> Vec<(usize, usize)> {
    let mut groups = Vec::with_capacity(ranked.len());
    for chunk in ranked.chunk_by(|a, b| a.score == b.score) {
        groups.extend((0..chunk.len()).map(|position| (position, chunk.len())));
    }
    groups
}

/// The cost of pairing ranked players `a` and `b` (`a` < `b`: `a` ranks higher).
fn pair_cost(ranked: &[&SwissPlayer], groups: &[(usize, usize)], a: usize, b: usize) -> i128 {
    let (pa, pb) = (ranked[a], ranked[b]);
    let repeat = i128::from(pa.opponents.contains(&pb.id));
    let (hard, soft) = colour_costs(preference(&pa.colours), preference(&pb.colours));
    let difference = i128::from(pa.score.abs_diff(pb.score));
    let score = (difference * difference).min(MAX_SCORE_COST);
    repeat * REPEAT
        + hard * HARD_COLOUR
        + score * SCORE
        + soft * SOFT_COLOUR
        + rank_cost(groups[a], groups[b], pa.score == pb.score) * RANK
}

/// Within a group, the distance from the Dutch system's top-half-against-bottom-half pairing;
/// across groups, the upper player's distance from its group's bottom plus the lower player's
/// from its top (the lowest of a group floats down to the highest of the next).
fn rank_cost(a: (usize, usize), b: (usize, usize), same_group: bool) -> i128 {
    let ((position_a, size_a), (position_b, _)) = (a, b);
    let cost = if same_group {
        (position_b - position_a).abs_diff(size_a / 2)
    } else {
        (size_a - 1 - position_a) + position_b
    };
    cost as i128
}

/// The bye to ranked player `a`: the lower the rank the cheaper, and a second bye dearer than
/// anyone's first.
fn bye_cost(ranked: &[&SwissPlayer], a: usize) -> i128 {
    let from_bottom = (ranked.len() - 1 - a) as i128;
    let second = if ranked[a].had_bye {
        MAX_PLAYERS as i128
    } else {
        0
    };
    (from_bottom + second) * BYE
}

/// How much a player wants a colour, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Strength {
    /// Alternation after an even number of each colour.
    Mild,
    /// One colour played once more than the other.
    Strong,
    /// The other colour would make three running, or two more of one than the other.
    Absolute,
}

/// The colour a player's history asks for next, and how strongly (`None`: no history).
fn preference(colours: &[Colour]) -> Option<(Colour, Strength)> {
    let blacks = colours.iter().filter(|&&c| c == Colour::Black).count() as i64;
    let difference = blacks - (colours.len() as i64 - blacks);
    let last = *colours.last()?;
    let last_two_same = colours.len() >= 2 && colours[colours.len() - 2] == last;
    Some(match difference {
        d if d > 1 => (Colour::White, Strength::Absolute),
        d if d < -1 => (Colour::Black, Strength::Absolute),
        _ if last_two_same => (last.other(), Strength::Absolute),
        1 => (Colour::White, Strength::Strong),
        -1 => (Colour::Black, Strength::Strong),
        _ => (last.other(), Strength::Mild),
    })
}

type Preference = Option<(Colour, Strength)>;

/// (hard, soft) colour costs of a pair: hard when both absolutely need the same colour; soft
/// 2 when both strongly want it, 1 when both want it at all.
fn colour_costs(a: Preference, b: Preference) -> (i128, i128) {
    match (a, b) {
        (Some((ca, sa)), Some((cb, sb))) if ca == cb => match sa.min(sb) {
            Strength::Absolute => (1, 0),
            Strength::Strong => (0, 2),
            Strength::Mild => (0, 1),
        },
        _ => (0, 0),
    }
}

/// The colours of a board: each player's preference where they differ; the stronger one's, then
/// the higher-ranked `a`'s, where they clash; with no preference on either side, black to the
/// higher-ranked player on even boards and to the lower-ranked on odd ones.
fn allocate(a: &SwissPlayer, b: &SwissPlayer, board: usize) -> Board {
    let a_takes = match (preference(&a.colours), preference(&b.colours)) {
        (None, None) if board.is_multiple_of(2) => Colour::Black,
        (None, None) => Colour::White,
        (Some((ca, _)), None) => ca,
        (None, Some((cb, _))) => cb.other(),
        (Some((ca, sa)), Some((cb, sb))) if ca == cb && sb > sa => ca.other(),
        (Some((ca, _)), Some(_)) => ca,
    };
    match a_takes {
        Colour::Black => Board {
            black: a.id,
            white: b.id,
        },
        Colour::White => Board {
            black: b.id,
            white: a.id,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh(id: u32, rating: i32) -> SwissPlayer {
        SwissPlayer {
            id,
            rating,
            ..SwissPlayer::default()
        }
    }

    #[test]
    fn the_first_round_pairs_top_half_against_bottom_half_alternating_colours() {
        let players: Vec<_> = (1..=6).map(|id| fresh(id, 2000 - id as i32)).collect();
        let round = pair_round(&players).unwrap();
        assert_eq!(
            round.boards,
            vec![
                Board { black: 1, white: 4 },
                Board { black: 5, white: 2 },
                Board { black: 3, white: 6 },
            ]
        );
        assert_eq!(round.bye, None);
    }

    #[test]
    fn an_odd_count_gives_the_bye_to_the_lowest_ranked_without_one() {
        let mut players: Vec<_> = (1..=5).map(|id| fresh(id, 1500)).collect();
        assert_eq!(pair_round(&players).unwrap().bye, Some(5));
        players[4].had_bye = true;
        assert_eq!(pair_round(&players).unwrap().bye, Some(4));
    }

    #[test]
    fn the_order_of_the_input_does_not_matter() {
        let players: Vec<_> = (1..=9)
            .map(|id| fresh(id, 1400 + 37 * (id as i32 % 4)))
            .collect();
        let mut reversed = players.clone();
        reversed.reverse();
        assert_eq!(pair_round(&players), pair_round(&reversed));
    }

    #[test]
    fn a_pair_never_meets_twice_while_another_pairing_exists() {
        let mut players: Vec<_> = (1..=4).map(|id| fresh(id, 1500)).collect();
        for (a, b) in [(0, 2), (1, 3)] {
            let (ia, ib) = (players[a].id, players[b].id);
            players[a].opponents.push(ib);
            players[b].opponents.push(ia);
        }
        for board in pair_round(&players).unwrap().boards {
            let black = &players[board.black as usize - 1];
            assert!(
                !black.opponents.contains(&board.white),
                "{board:?} met already"
            );
        }
    }

    #[test]
    fn nobody_takes_a_colour_three_times_running_when_a_pairing_avoids_it() {
        // 1 and 2 had black twice: they must not meet (one would take it a third time).
        let mut players: Vec<_> = (1..=4).map(|id| fresh(id, 1500)).collect();
        players[0].colours = vec![Colour::Black, Colour::Black];
        players[1].colours = vec![Colour::Black, Colour::Black];
        players[2].colours = vec![Colour::White, Colour::White];
        players[3].colours = vec![Colour::White, Colour::White];
        let round = pair_round(&players).unwrap();
        for board in round.boards {
            assert!([3, 4].contains(&board.black), "{board:?}");
        }
    }

    #[test]
    fn duplicates_and_too_many_players_are_refused() {
        assert_eq!(
            pair_round(&[fresh(1, 1), fresh(1, 2)]),
            Err(PairingError::DuplicatePlayer(1))
        );
        let many: Vec<_> = (0..=MAX_PLAYERS as u32).map(|id| fresh(id, 0)).collect();
        assert_eq!(pair_round(&many), Err(PairingError::TooManyPlayers(1001)));
    }
}

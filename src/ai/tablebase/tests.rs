//! The table checked twice: against a second solver that shares nothing with
//! [`super::solve`] but the rules engine, and against 100,000 games played
//! out with the table's moves.

use std::collections::HashMap;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::index::Index;
use super::solve::{self, CONVERGED};
use super::*;
use crate::engine::{HOUSE_OF_WATER, Side, Sticks};

fn k2() -> &'static (solve::Solution, Tablebase) {
    super::k2_for_tests()
}

/// What `senet tablebase build --pieces 2` printed in release mode: the
/// same file in another process, another build profile, another day.
const K2_SHA256: &str = "8a7a6d5948c3699f0518df32526d24e5e54584182536f3d121cf925862640080";

fn pos(text: &str) -> Position {
    text.parse().unwrap()
}

#[test]
fn k2_converges_and_one_more_sweep_changes_nothing() {
    let (solution, _) = k2();
    assert!(solution.last_change < CONVERGED, "{}", solution.last_change);
    assert!(solution.sweeps > 1, "a single sweep cannot have converged");
    let residual = solve::residual(&Index::new(2), &solution.values);
    assert!(residual < CONVERGED, "Bellman residual {residual}");
    assert!(solution.values.iter().all(|v| (0.0..=1.0).contains(v)));
}

#[test]
fn the_same_build_gives_the_same_bytes_and_they_load_back() {
    assert_eq!(
        Tablebase::build(1).table.to_bytes(),
        Tablebase::build(1).table.to_bytes()
    );
    let bytes = k2().1.to_bytes();
    assert_eq!(bytes.len(), HEADER + 165_242 * 4);
    assert_eq!(hex(&Sha256::digest(&bytes)), K2_SHA256);
    assert_eq!(Tablebase::from_bytes("t", &bytes).unwrap(), k2().1);
}

#[test]
fn damaged_files_are_refused_with_a_reason() {
    let bytes = Tablebase::build(1).table.to_bytes();
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert!(matches!(
        Tablebase::from_bytes("t", &flipped),
        Err(TablebaseError::Checksum(_))
    ));
    assert!(matches!(
        Tablebase::from_bytes("t", &bytes[..bytes.len() - 4]),
        Err(TablebaseError::Truncated(_))
    ));
    assert!(matches!(
        Tablebase::from_bytes("t", b"SENETNN\x01"),
        Err(TablebaseError::NotATable(_))
    ));
    let mut k9 = bytes;
    k9[8] = 9;
    assert!(matches!(
        Tablebase::from_bytes("t", &k9),
        Err(TablebaseError::Pieces(_, 9))
    ));
}

#[test]
fn save_replaces_the_file_atomically_and_load_reads_it() {
    let dir = std::env::temp_dir().join(format!("senet-tb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("k1.tb");
    std::fs::write(&path, b"old").unwrap();
    let table = Tablebase::build(1).table;
    let checksum = table.save(&path).unwrap();
    assert_eq!(
        checksum,
        hex(&Sha256::digest(std::fs::read(&path).unwrap()))
    );
    assert_eq!(Tablebase::load(&path).unwrap(), table);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1, "no temporary file is left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn known_endings_have_their_exact_values() {
    let table = &k2().1;
    // White's last piece on 30, black's on 1: a 1 (4/16) wins at once, and
    // black needs many throws, so white wins more often than that.
    let p = table
        .value(&pos("B............................W w"))
        .unwrap();
    assert!(p > 0.25 && p < 1.0, "{p}");
    let q = table.value(&pos(".............................. b"));
    assert_eq!(q, None, "a finished game is not covered");
    let three = pos("BBB........................WW. b");
    assert_eq!(table.value(&three), None, "three black pieces exceed K = 2");
}

/// The second computation: Jacobi iteration over positions keyed by both
/// bitboards *and* the side to move (no symmetry), enumerated square by
/// square, with successors found by [`Position::play`] for every square
/// (not the move generator's list) and stored as explicit edges.
struct Independent {
    ids: HashMap<Position, usize>,
    values: Vec<f64>,
}

/// Where one throw can lead: a terminal value, or a position's id and
/// whether its value counts for the mover (same side to move) or against.
#[derive(Clone, Copy)]
enum Edge {
    Won,
    Position { id: usize, same_side: bool },
}

impl Independent {
    fn solve(pieces: u32) -> Independent {
        let squares: Vec<u8> = (1..=30).filter(|&s| s != HOUSE_OF_WATER).collect();
        let sets: Vec<u32> = (1u32..1 << squares.len())
            .filter(|set| set.count_ones() <= pieces)
            .map(|set| {
                (0..squares.len())
                    .filter(|i| set & (1 << i) != 0)
                    .fold(0, |board, i| board | 1 << squares[i])
            })
            .collect();
        let mut positions = Vec::new();
        for &black in &sets {
            for &white in sets.iter().filter(|&&w| w & black == 0) {
                for turn in Side::BOTH {
                    positions.push(Position::from_bitboards(black, white, turn).unwrap());
                }
            }
        }
        let ids: HashMap<Position, usize> =
            positions.iter().enumerate().map(|(i, p)| (*p, i)).collect();
        let edges: Vec<[Vec<Edge>; 5]> = positions
            .iter()
            .map(|p| Roll::ALL.map(|roll| Self::edges(p, roll, &ids)))
            .collect();
        let mut values = vec![0.0; positions.len()];
        loop {
            let next: Vec<f64> = edges
                .iter()
                .map(|by_roll| {
                    Roll::ALL
                        .iter()
                        .zip(by_roll)
                        .map(|(roll, edges)| roll.probability() * Self::best(edges, &values))
                        .sum()
                })
                .collect();
            let change = next
                .iter()
                .zip(&values)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            values = next;
            if change < 1e-12 {
                return Independent { ids, values };
            }
        }
    }

    fn edges(position: &Position, roll: Roll, ids: &HashMap<Position, usize>) -> Vec<Edge> {
        let edge = |child: Position| match child.winner() {
            Some(_) => Edge::Won,
            None => Edge::Position {
                id: ids[&child],
                same_side: child.turn() == position.turn(),
            },
        };
        let moves: Vec<Edge> = (1..=30)
            .filter_map(|from| position.play(from, roll).ok())
            .map(|(child, _)| edge(child))
            .collect();
        if moves.is_empty() {
            vec![edge(position.pass())]
        } else {
            moves
        }
    }

    fn best(edges: &[Edge], values: &[f64]) -> f64 {
        edges
            .iter()
            .map(|edge| match *edge {
                Edge::Won => 1.0,
                Edge::Position {
                    id,
                    same_side: true,
                } => values[id],
                Edge::Position { id, .. } => 1.0 - values[id],
            })
            .fold(f64::NEG_INFINITY, f64::max)
    }
}

#[test]
fn an_independent_solver_agrees_with_every_k2_value_to_a_millionth() {
    let table = &k2().1;
    let independent = Independent::solve(2);
    assert_eq!(independent.ids.len(), 2 * table.len());
    let mut worst: f64 = 0.0;
    for (position, &id) in &independent.ids {
        let exact = table.value(position).expect("covered");
        worst = worst.max((exact - independent.values[id]).abs());
    }
    assert!(worst < 1e-6, "largest difference {worst}");
}

/// One game from `start` to its end, both sides playing the table's best
/// move; `true` if the side to move at the start won.
fn play_out(table: &Tablebase, start: Position, rng: &mut ChaCha8Rng) -> bool {
    let mut position = start;
    while !position.is_over() {
        let roll = Sticks::from_bits(rng.random::<u8>()).roll();
        let best = position
            .legal_moves(roll)
            .iter()
            .map(|mv| (*mv, table.after(&position, mv)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        position = match best {
            Some((mv, _)) => position.after(&mv),
            None => position.pass(),
        };
    }
    position.winner() == Some(start.turn())
}

#[test]
fn a_hundred_thousand_playouts_win_as_often_as_the_table_predicts() {
    let table = &k2().1;
    let index = Index::new(2);
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    // Per tenth of predicted chance: games, predicted wins, observed wins, variance.
    let mut bins = [(0u32, 0.0f64, 0u32, 0.0f64); 10];
    for game in 0..100_000 {
        let (mover, other) = index.position(rng.random_range(0..index.len()));
        let (black, white, turn) = if game % 2 == 0 {
            (mover, other, Side::Black)
        } else {
            (other, mover, Side::White)
        };
        let start = Position::from_bitboards(black, white, turn).unwrap();
        let predicted = table.value(&start).unwrap();
        let won = play_out(table, start, &mut rng);
        let bin = &mut bins[((predicted * 10.0) as usize).min(9)];
        *bin = (
            bin.0 + 1,
            bin.1 + predicted,
            bin.2 + u32::from(won),
            bin.3 + predicted * (1.0 - predicted),
        );
    }
    let z = |predicted: f64, observed: u32, variance: f64| {
        (f64::from(observed) - predicted) / variance.sqrt().max(1e-9)
    };
    let total = bins
        .iter()
        .fold((0.0, 0, 0.0), |t, b| (t.0 + b.1, t.1 + b.2, t.2 + b.3));
    assert!(z(total.0, total.1, total.2).abs() < 4.0, "{total:?}");
    for (tenth, bin) in bins.iter().enumerate() {
        if bin.0 >= 100 {
            assert!(z(bin.1, bin.2, bin.3).abs() < 4.0, "tenth {tenth}: {bin:?}");
        }
    }
}

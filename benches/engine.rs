//! Engine speed: perft(6) from the start in leaves per second, and legal-move
//! generation over positions met in random play. Run with
//! `cargo bench --bench engine`; figures go in docs/PERFORMANCE.md.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use senet::engine::perft::perft;
use senet::engine::{Position, Roll, Sticks};

/// The published count for depth 6 from the start; checked before timing.
const PERFT_6_LEAVES: u64 = 12_572_296;

fn perft_from_start(c: &mut Criterion) {
    let start = Position::start();
    assert_eq!(perft(&start, 6), PERFT_6_LEAVES);
    let mut group = c.benchmark_group("perft");
    group.throughput(Throughput::Elements(PERFT_6_LEAVES));
    group.sample_size(20);
    group.bench_function("start depth 6 (leaves)", |b| {
        b.iter(|| perft(black_box(&start), black_box(6)))
    });
    group.finish();
}

/// Positions met in seeded random games, so every run sees the same mix of
/// openings, middle games with blocks and endings near the houses.
fn positions_from_random_play(count: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let mut positions = Vec::with_capacity(count);
    let mut position = Position::start();
    while positions.len() < count {
        if position.is_over() {
            position = Position::start();
        }
        positions.push(position);
        let roll = Sticks::from_bits(rng.random()).roll();
        let moves = position.legal_moves(roll);
        position = match moves.iter().nth(rng.random_range(0..moves.len().max(1))) {
            Some(mv) => position.after(mv),
            None => position.pass(),
        };
    }
    positions
}

fn legal_move_generation(c: &mut Criterion) {
    let positions = positions_from_random_play(10_000);
    let mut group = c.benchmark_group("legal_moves");
    group.throughput(Throughput::Elements(
        (positions.len() * Roll::ALL.len()) as u64,
    ));
    group.bench_function("per (position, throw)", |b| {
        b.iter(|| {
            let mut total = 0;
            for position in black_box(&positions) {
                for roll in Roll::ALL {
                    total += position.legal_moves(roll).len();
                }
            }
            total
        })
    });
    group.bench_function("count only, per (position, throw)", |b| {
        b.iter(|| {
            let mut total = 0;
            for position in black_box(&positions) {
                for roll in Roll::ALL {
                    total += position.count_legal_moves(roll);
                }
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, perft_from_start, legal_move_generation);
criterion_main!(benches);

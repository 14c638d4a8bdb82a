//! Recomputing a tournament from its log: the log is replayed, and every pairing in it is made
//! again from the state before it and compared; the first event that does not replay or whose
//! pairing differs is named. (Checking each `result` against its room's log is the caller's:
//! it needs the store.)

use std::time::Duration;

use super::event::{Event, Format, Waited};
use super::fold::{FoldError, Tournament};
use super::pairing::{self, Board};

/// The first place a log and its recomputation part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Difference {
    #[error("{0}")]
    DoesNotReplay(#[from] FoldError),
    #[error("event {v}: logged pairing {logged}, recomputed {recomputed}")]
    Pairing {
        v: u64,
        logged: String,
        recomputed: String,
    },
}

/// The tournament the log makes, if every event replays and every pairing recomputes.
pub fn verify(events: &[Event]) -> Result<Tournament, Difference> {
    verify_timed(events).map(|(tournament, _)| tournament)
}

/// [`verify`], with the CPU time each pairing's recomputation took on this thread, in log
/// order: the cost of pairing that very round again (what `senet tournament verify` reports).
pub fn verify_timed(events: &[Event]) -> Result<(Tournament, Vec<Duration>), Difference> {
    let mut tournament = Tournament::default();
    let mut cpu = Vec::new();
    for event in events {
        if let Event::Paired {
            boards, bye, pool, ..
        } = event
        {
            let logged = (
                boards
                    .iter()
                    .map(|b| Board {
                        black: b.black,
                        white: b.white,
                    })
                    .collect(),
                *bye,
            );
            let before = crate::os::thread_cpu_time();
            let recomputed = recompute(&tournament, pool);
            cpu.push(crate::os::thread_cpu_time().saturating_sub(before));
            if recomputed.as_ref() != Ok(&logged) {
                return Err(Difference::Pairing {
                    v: tournament.v + 1,
                    logged: format!("{logged:?}"),
                    recomputed: format!("{recomputed:?}"),
                });
            }
        }
        tournament.apply(event)?;
    }
    Ok((tournament, cpu))
}

type Pairing = (Vec<Board>, Option<u32>);

fn recompute(tournament: &Tournament, pool: &[Waited]) -> Result<Pairing, String> {
    match tournament.format() {
        Some(Format::Swiss { .. }) => pairing::swiss::pair_round(&tournament.swiss_players())
            .map(|round| (round.boards, round.bye))
            .map_err(|e| e.to_string()),
        Some(Format::Arena { .. }) => {
            let in_pool: Vec<u32> = pool.iter().map(|w| w.player).collect();
            if in_pool != tournament.free() {
                return Err(format!(
                    "a pool of {in_pool:?}, while {:?} were free",
                    tournament.free()
                ));
            }
            pairing::arena::pair_pool(&tournament.arena_pool(pool))
                .map(|boards| (boards, None))
                .map_err(|e| e.to_string())
        }
        None => Err("a pairing before the tournament was created".into()),
    }
}

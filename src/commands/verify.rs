//! `senet verify <record.json>`: checks a finished game's record (as served
//! by `GET /api/rooms/{id}/record`) without trusting the server. It checks
//! the revealed seed against the published hash, that the hash was logged
//! (in `started`) before every client seed and that no client seed came after
//! the first throw (so the server could not choose its seed knowing them),
//! that the record's `client_seeds` are the log's, recomputes every throw
//! from the seed, and re-judges every throw and move with the same rules
//! the server uses ([`Game::decide`]). In timed games the clocks are counted
//! again from the events' times (`at`): every clock an event carries must be
//! what the rules make of them, a `timeout` must come after the side's time
//! really ran out, and no throw, move or other end may come after it did.
//! A hint (practice rooms) must be the engine's move for its throw; the
//! verdict counts them. A game stored before client seeds came after
//! `started` has them in `started`: its throws are checked with those, and the
//! verdict says `"order": "legacy"` (nothing shows the seed was drawn first).
//! Prints a JSON verdict; exit status 0 when consistent, 1 with the first
//! inconsistency, 2 for unreadable input.

use std::collections::VecDeque;
use std::process::ExitCode;

use serde_json::json;

use crate::fairness::{parse_seed, seed_hash};
use crate::protocol::{Action, EndReason, Event, Record, Seat, UnixMs};
use crate::room::seats::Sitter;
use crate::room::{Context, Game, Room, Seats};

/// Check that a game record is consistent: seed, throws and moves.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The record, as JSON (`GET /api/rooms/{id}/record`).
    record: std::path::PathBuf,
}

pub fn run(args: Args) -> ExitCode {
    let record = std::fs::read_to_string(&args.record)
        .map_err(|e| format!("cannot read {}: {e}", args.record.display()))
        .and_then(|text| {
            serde_json::from_str::<Record>(&text).map_err(|e| format!("not a game record: {e}"))
        });
    let record = match record {
        Ok(record) => record,
        Err(message) => {
            eprintln!("senet: {message}");
            return ExitCode::from(2);
        }
    };
    match verify(&record) {
        Ok(verdict) => {
            println!("{verdict}");
            ExitCode::SUCCESS
        }
        Err(problem) => {
            println!(
                "{}",
                json!({"consistent": false, "room": record.room, "error": problem})
            );
            ExitCode::from(1)
        }
    }
}

/// The verdict on a consistent record, or the first inconsistency.
pub fn verify(record: &Record) -> Result<serde_json::Value, String> {
    let seed_hex = record
        .seed
        .as_deref()
        .ok_or("the record has no seed: the game is not over")?;
    let seed = parse_seed(seed_hex).ok_or("the seed is not 64 hex digits")?;
    if seed_hash(&seed) != record.seed_hash {
        return Err("the revealed seed does not hash to seed_hash".into());
    }
    let seats = Seats::new(Some(Sitter::recorded()), Some(Sitter::recorded()));
    let room = Room::new(record.room.clone(), record.mode, seed, record.clock);
    let mut game = Game::new(room, seats);
    let mut replay = Replay::default();
    for (index, recorded) in record.events.iter().enumerate() {
        let at = format!("event v={} ({})", recorded.v, recorded.t);
        if recorded.v != index as u64 + 1 {
            return Err(format!("{at}: versions must run 1, 2, 3, ..."));
        }
        let event = Event::from_parts(&recorded.t, &recorded.d.to_string())
            .map_err(|e| format!("{at}: unreadable: {e}"))?;
        replay
            .check(&game, &event, recorded.at, seed_hex)
            .map_err(|problem| format!("{at}: {problem}"))?;
        game.apply(recorded.v, recorded.at, &event)
            .map_err(|error| error.to_string())?;
    }
    if let Some(missing) = replay.expected.front() {
        return Err(format!("the record ends before {missing:?}"));
    }
    if game.client_seeds() != &record.client_seeds {
        return Err(format!(
            "client_seeds differ from the log's: {:?}",
            game.client_seeds()
        ));
    }
    let result = game
        .result()
        .ok_or("the record ends before the game is over")?;
    let mut verdict = json!({
        "consistent": true,
        "room": record.room,
        "throws": replay.throws,
        "moves": replay.moves,
        "hints": replay.hints,
        "winner": result.winner,
        "reason": result.reason,
    });
    if replay.legacy_order {
        verdict["order"] = json!("legacy");
    }
    Ok(verdict)
}

/// What the replay expects next, and what it counted.
#[derive(Default)]
struct Replay {
    /// Events the last throw or move must be followed by (a pass, the end).
    expected: VecDeque<Event>,
    throws: u32,
    moves: u32,
    /// Hints shown (practice rooms): a game played with help says so.
    hints: u32,
    /// Whether `started` carried the client seeds (a game stored before they came after it).
    legacy_order: bool,
}

impl Replay {
    fn check(
        &mut self,
        game: &Game,
        event: &Event,
        at: UnixMs,
        seed_hex: &str,
    ) -> Result<(), String> {
        match event {
            Event::Started { client_seeds, .. } => {
                let mut expected = game.decide_start(at).events.into_iter().next();
                // A log from before client seeds came after `started` carries them there: the
                // throws use them, but the order proves nothing.
                if let Some(Event::Started {
                    client_seeds: legacy,
                    ..
                }) = &mut expected
                {
                    legacy.clone_from(client_seeds);
                }
                self.legacy_order |= client_seeds.is_some();
                if expected.as_ref() != Some(event) {
                    return Err(format!("expected {expected:?}"));
                }
            }
            Event::Rolled { .. } => {
                self.throws += 1;
                self.judge(game, Action::Roll, event, at)?;
            }
            Event::Moved { from, .. } => {
                self.moves += 1;
                self.judge(game, Action::Move { from: *from }, event, at)?;
            }
            Event::Passed { .. } => self.expect(event)?,
            // The hint shown must be the engine's move for that throw.
            Event::Hinted { .. } => {
                self.hints += 1;
                self.judge(game, Action::Hint, event, at)?;
            }
            Event::Resumed { .. } => {
                let expected = game.decide_resume(at).events.into_iter().next();
                if expected.as_ref() != Some(event) {
                    return Err(format!("the clocks say {expected:?}"));
                }
            }
            Event::Paused { .. } => {
                let expected = game.decide_pause(at).events.into_iter().next();
                if expected.as_ref() != Some(event) {
                    return Err(format!("the clocks say {expected:?}"));
                }
            }
            Event::GameOver {
                winner,
                reason,
                seed,
                note,
                ..
            } => {
                if seed != seed_hex {
                    return Err("the seed differs from the record's".into());
                }
                match reason {
                    EndReason::BorneOff => self.expect(event)?,
                    _ if game.is_over() => return Err("the game was already over".into()),
                    EndReason::Timeout => {
                        let expected = game.decide_timeout(at).events.into_iter().next();
                        if expected.as_ref() != Some(event) {
                            return Err(format!(
                                "no time had run out: the clocks say {expected:?}"
                            ));
                        }
                    }
                    _ if game.is_flagged(at) => {
                        return Err("the side to move had already run out of time".into());
                    }
                    _ => {
                        let expected = match reason {
                            EndReason::Operator => game
                                .decide_end(note.as_deref().unwrap_or_default(), at)
                                .ok()
                                .and_then(|decided| decided.events.into_iter().next()),
                            _ => Some(game.game_over(*winner, *reason, at)),
                        };
                        if expected.as_ref() != Some(event) {
                            return Err(format!("the clocks say {expected:?}"));
                        }
                    }
                }
            }
            // Offers, presence and rematches are the players' business.
            _ => {}
        }
        Ok(())
    }

    /// Re-decides a throw or move and compares with what the record says;
    /// the consequences the rules dictate are expected next.
    fn judge(
        &mut self,
        game: &Game,
        action: Action,
        event: &Event,
        at: UnixMs,
    ) -> Result<(), String> {
        if let Some(missing) = self.expected.front() {
            return Err(format!("expected {missing:?} first"));
        }
        let ctx = Context {
            now: at,
            abandon_after_ms: 0,
            idle_turn_after_ms: 0,
            connected: [true, true],
        };
        let decided = game
            .decide(Seat::Both, action, &ctx)
            .map_err(|refusal| format!("the rules refuse it: {refusal}"))?;
        let mut consequences = decided.events.into_iter().filter(|e| {
            matches!(
                e,
                Event::Rolled { .. }
                    | Event::Hinted { .. }
                    | Event::Moved { .. }
                    | Event::Passed { .. }
                    | Event::GameOver { .. }
            )
        });
        let mut expected = consequences.next();
        // A log from before refusals were named has none: they are only derived from the
        // position and the throw, which are checked.
        if let (
            Some(Event::Rolled { refused, .. }),
            Event::Rolled {
                refused: logged, ..
            },
        ) = (&mut expected, event)
            && logged.is_empty()
        {
            refused.clear();
        }
        if expected.as_ref() != Some(event) {
            return Err(format!("the rules say {expected:?}"));
        }
        self.expected.extend(consequences);
        Ok(())
    }

    fn expect(&mut self, event: &Event) -> Result<(), String> {
        match self.expected.pop_front() {
            Some(expected) if &expected == event => Ok(()),
            expected => Err(format!("the rules say {expected:?}")),
        }
    }
}

//! The fold: a logged event applied to the state, checked on replay so that a log that does not
//! replay is a [`ReplayError`] naming the event; also what each event changes as a decision
//! adds it.

use std::sync::Arc;

use super::{Clock, Game, Stage, index};
use crate::engine::{Side, Sticks};
use crate::protocol::{ClientSeed, Event, EventKind, UnixMs, Version};
use crate::room::error::ReplayError;

impl Game {
    /// Folds the logged event numbered `v`, logged at `at`, into the state. A move is played
    /// again by the engine; one it refuses (or a version out of order) is a [`ReplayError`].
    pub fn apply(&mut self, v: Version, at: UnixMs, event: &Event) -> Result<(), ReplayError> {
        let fails = |why: String| ReplayError {
            v,
            kind: EventKind::from(event).into(),
            why,
        };
        if v != self.v + 1 {
            return Err(fails(format!("the state is at version {}", self.v)));
        }
        if let Event::ClientSeed { client_seed, .. } = event {
            if self.stage == Stage::Waiting {
                return Err(fails(
                    "a client seed before `started` logged seed_hash".into(),
                ));
            }
            if !self.client_seeds_open() {
                return Err(fails(
                    "client seeds are locked after the first throw".into(),
                ));
            }
            ClientSeed::parse(client_seed).map_err(fails)?;
        }
        if let Event::Moved { from, .. } = event {
            let Stage::Move { sticks } = self.stage else {
                return Err(fails("a move must follow a throw".into()));
            };
            let (after, _) = self
                .position
                .play(*from, sticks.roll())
                .map_err(|illegal| fails(illegal.to_string()))?;
            self.position = after;
        }
        self.fold(event, at);
        self.v = v;
        Ok(())
    }

    /// What an event logged at `at` changes, besides the position a move leaves (set by the
    /// caller, who played the move) and the version.
    pub(super) fn fold(&mut self, event: &Event, at: UnixMs) {
        self.at = at;
        // A hint is for one throw: the throw's move or pass ends it (and so does the game's end).
        if matches!(
            event,
            Event::Moved { .. } | Event::Passed { .. } | Event::GameOver { .. }
        ) {
            self.hint = None;
        }
        match event {
            Event::Started {
                clock,
                client_seeds,
                ..
            } => {
                if client_seeds.is_some() {
                    Arc::make_mut(&mut self.client_seeds).set_by(event);
                }
                self.stage = Stage::Roll;
                self.turn_began = at;
                self.clock = clock.map(|control| Clock {
                    control,
                    remaining: [control.initial_ms(); 2],
                    since: at,
                    paused: false,
                });
            }
            Event::ClientSeed { side, .. } => {
                Arc::make_mut(&mut self.client_seeds).set_by(event);
                let logged = &mut self.client_seeds_logged[index(*side)];
                *logged = logged.saturating_add(1);
            }
            Event::Rolled { sticks, .. } => {
                self.throws += 1;
                self.stage = Stage::Move {
                    sticks: Sticks::from_faces(*sticks),
                };
            }
            // The game-over event that follows a winning move sets Over.
            Event::Moved {
                side, next, clocks, ..
            } => {
                self.moves += 1;
                self.stage = Stage::Roll;
                self.set_clocks(*clocks, at);
                if next != side {
                    self.begin_turn(*next, at);
                }
            }
            Event::Passed { clocks, next, .. } => {
                self.position = self.position.pass();
                self.stage = Stage::Roll;
                self.set_clocks(*clocks, at);
                self.begin_turn(*next, at);
            }
            Event::Resumed { clocks } => self.set_paused(*clocks, at, false),
            Event::Paused { clocks } => self.set_paused(*clocks, at, true),
            Event::Hinted { from, .. } => self.hint = Some(*from),
            Event::DrawOffered { side } => {
                self.draw_offer = Some(*side);
                self.draw_offer_spent[index(*side)] = true;
            }
            Event::DrawCancelled { .. } => self.draw_offer = None,
            Event::Presence { black, white } => self.presence = [*black, *white],
            Event::GameOver {
                winner,
                reason,
                clocks,
                note,
                ..
            } => {
                self.set_clocks(*clocks, at);
                self.draw_offer = None;
                self.note = note.as_deref().map(Arc::from);
                self.stage = Stage::Over(*winner, *reason);
            }
            Event::RematchOffered { side } => self.rematch_offers[index(*side)] = true,
            Event::Rematch { room } => self.rematch = Some(room.clone()),
            Event::Said { .. }
            | Event::ChatSet { .. }
            | Event::Muted { .. }
            | Event::ChatHidden { .. } => self.fold_chat(event, self.v + 1, at),
        }
    }

    /// `side`'s turn begins at `at`: its opponent has moved, so `side` may offer a draw again.
    fn begin_turn(&mut self, side: Side, at: UnixMs) {
        self.turn_began = at;
        self.draw_offer_spent[index(side)] = false;
    }
}

//! A timed game's clock, for its task: taken up as the task starts (`resumed`, unless another
//! live instance kept it or a drain paused it), paused when this instance is drained, resumed
//! when the player on turn is back here, and its deadline as an instant to sleep until.

use tokio::time::Instant;

use super::RoomTask;
use crate::protocol::UnixMs;
use crate::room::game::Game;
use crate::room::now_ms;
use crate::store::Turn;

/// The longest a teacher's pause lasts (issue 50): half an hour.
pub const HOLD_LIMIT_MS: UnixMs = 30 * 60_000;

impl RoomTask {
    /// When the task must next look at the clock: a teacher's hold ends when they say or at its
    /// limit, whatever a pause's own limit says.
    pub(super) fn clock_due(&self) -> Option<UnixMs> {
        match self.held {
            Some(until) if self.game.paused_for().is_some() => Some(until),
            _ => self.game.clock_due(),
        }
    }

    /// Takes up a timed game's clock as the task starts. If another live instance keeps it, its
    /// time has run all along: nothing is given back. Otherwise nobody kept it since the last
    /// logged event (the server was down, or the instance that kept it died): `resumed`. A
    /// paused clock waits for its player (or its limit) either way.
    pub(super) async fn take_up_clock(&mut self) {
        let kept = match &self.store.cluster {
            Some(cluster) => cluster.keep_clock(self.game.id()).await,
            // One instance: nobody else keeps a clock.
            None => Ok(false),
        };
        let kept_elsewhere = match kept {
            Ok(kept) => kept,
            Err(error) => {
                // As a single server would: better time given back than a downtime charged.
                tracing::warn!(%error, "could not ask whether another instance keeps the clock");
                false
            }
        };
        if kept_elsewhere {
            tracing::info!("another instance keeps the clock: not resumed");
        } else if self.game.paused_for().is_none() {
            self.commit_now(Game::decide_resume).await;
        }
    }

    /// While this instance drains: if the player on turn is connected here, their clock stops
    /// now, before their socket closes, and the instance they come back through resumes it.
    pub(super) async fn pause_on_turn_here(&mut self) {
        let on_turn_here = self
            .game
            .running()
            .is_some_and(|side| self.person_connected(side));
        if on_turn_here {
            self.commit_now(Game::decide_pause).await;
        }
    }

    /// The clock's time came: a flag, or a pause that reached its limit. A player on turn still
    /// away when their pause ends starts their absence countdown then (a pause starts none).
    pub(super) async fn clock_is_due(&mut self) {
        // A hold that reached its limit ends, and the pause with it (its own limit is past).
        if self.held.is_some_and(|until| until <= now_ms()) {
            self.held = None;
        }
        self.commit_now(Game::decide_clock).await;
        self.record_presence().await;
    }

    /// Resumes a paused clock once the player on turn has a connection here.
    pub(super) async fn resume_if_back(&mut self) {
        let back = self
            .game
            .paused_for()
            .is_some_and(|side| self.person_connected(side));
        if back && !self.draining && self.held.is_none() {
            self.commit_now(Game::decide_resume).await;
        }
    }

    /// A teacher pauses the clock (as a drain does, whoever is connected) or lets it go on. A
    /// held clock stays paused until let go, or for [`HOLD_LIMIT_MS`] at most (a pause's own
    /// limit, `PAUSE_LIMIT_MS`, is for a player moving between instances); moves may still be
    /// played meanwhile, and start no clock.
    pub(super) async fn hold(&mut self, hold: bool) {
        self.held = hold.then(|| now_ms() + HOLD_LIMIT_MS);
        if hold {
            self.commit_now(Game::decide_pause).await;
        } else if self.game.paused_for().is_some() {
            self.commit_now(Game::decide_resume).await;
        }
    }
}

impl RoomTask {
    /// Stores the correspondence game's turn as the log has it, as the task starts: a row that
    /// an append could not write (a rematch's room started at once, the operator's end) is
    /// mended here, so the store's due games are right once any of them is loaded.
    pub(super) async fn mend_turn(&mut self) {
        let turn = correspondence_turn(&self.game);
        if let Err(error) = self.store.log.set_turn(self.game.id(), turn).await {
            tracing::warn!(%error, "could not store the correspondence turn");
        }
    }
}

/// A correspondence game's side to move and its deadline, while it is being played.
pub(super) fn correspondence_turn(game: &Game) -> Option<Turn> {
    let side = game.running().filter(|_| game.is_correspondence())?;
    let due_at = game.deadline()?;
    Some(Turn { side, due_at })
}

/// The instant the wall clock reads `at`.
pub(super) fn instant_of(at: UnixMs) -> Instant {
    let wait = u64::try_from(at - now_ms()).unwrap_or(0);
    Instant::now() + std::time::Duration::from_millis(wait)
}

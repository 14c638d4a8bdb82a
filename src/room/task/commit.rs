//! The step every change of a room goes through: decide against the game as this task knows
//! it, append the events to the log (one commit), keep the next game, broadcast; on a version
//! race, or on news from another instance, catch up with the log first.

use std::sync::Arc;

use tokio::time::Instant;

use super::clock::correspondence_turn;
use super::{Acting, ConnId, Frame, RoomTask};
use crate::engine::Side;
use crate::players::store::RateOnCommit;
use crate::protocol::{Action, Event, Mode, Reply, Seat, UnixMs, Version};
use crate::room::bounds::check_log_room;
use crate::room::error::{Refusal, RoomError};
use crate::room::game::{Context, Decision, Game, Readers, withheld};
use crate::room::{decode, now_ms};
use crate::store::{AllOnCommit, InCommit, StoreError, StoredEvent, TurnOnCommit};
use crate::telemetry;

/// How many times an action is re-judged after losing a version race
/// before the caller is told to try again.
const MAX_CONFLICT_RETRIES: usize = 5;

impl RoomTask {
    /// Judges and commits an action; one sent under a resend key is answered as it was if it
    /// was sent before (`task/resends.rs`).
    pub(super) async fn act(&mut self, conn: ConnId, acting: Acting) -> Result<Version, RoomError> {
        let seat = self.conns.get(&conn).ok_or(RoomError::NotAttached)?.seat;
        let Acting { action, resend } = acting;
        match resend {
            Some(key) => self.act_resendable(seat, key, action).await,
            None => self.act_once(seat, action, None).await,
        }
    }

    /// Judges and commits an action, unless the log reaches `fence` first (then
    /// [`RoomError::Stale`]: an earlier try of the same action, whose outcome was unknown, may
    /// be there).
    pub(super) async fn act_once(
        &mut self,
        seat: Seat,
        action: Action,
        fence: Option<Version>,
    ) -> Result<Version, RoomError> {
        // An action that comes after the deadline, before the timer was seen, meets the
        // timeout first (the commands' branch of the loop goes first).
        self.commit_now(Game::decide_timeout).await;
        match self.judge(seat, action, fence).await {
            Err(RoomError::Refused(Refusal::RematchOpen(room))) => {
                // Perhaps it was logged and never opened (a crash between the two): open it now.
                self.open_rematch_room().await?;
                Err(Refusal::RematchOpen(room).into())
            }
            Err(RoomError::Refused(refusal)) if refusal.depends_on_the_game() => {
                // Perhaps another instance moved the game on and its news has not come yet:
                // judge against the log, so that an action sent after an event committed
                // anywhere is judged after that event.
                let before = self.game.version();
                self.catch_up_with_presence().await?;
                if self.game.version() == before {
                    return Err(refusal.into());
                }
                self.judge(seat, action, fence).await
            }
            judged => judged,
        }
    }

    /// Judges a seat's action against the game as this task knows it, and commits it; the
    /// events of an append that failed are kept in `unsure`.
    async fn judge(
        &mut self,
        seat: Seat,
        action: Action,
        fence: Option<Version>,
    ) -> Result<Version, RoomError> {
        self.unsure = None;
        self.commit_with_retry(|game, ctx| {
            if fence.is_some_and(|fence| game.version() >= fence) {
                return Err(RoomError::Stale(game.version()));
            }
            Ok(game.decide(seat, action, ctx)?)
        })
        .await
    }

    /// Commits what the game decides at this moment by itself (a timeout, a resumed clock).
    pub(super) async fn commit_now(&mut self, decide: fn(&Game, UnixMs) -> Decision) {
        let now = now_ms();
        if let Err(error) = self
            .commit_with_retry(|game, _| Ok(decide(game, now)))
            .await
        {
            tracing::error!(%error, "the clock's event was not recorded");
        }
    }

    /// Decides with `decide` against the current state and commits the
    /// decision; on a version conflict, catches up and decides again, with
    /// the context as it is then (the news may have changed who is connected).
    /// Returns the version of the last event (the current one if none).
    pub(super) async fn commit_with_retry(
        &mut self,
        decide: impl Fn(&Game, &Context) -> Result<Decision, RoomError>,
    ) -> Result<Version, RoomError> {
        for _ in 0..MAX_CONFLICT_RETRIES {
            let decision = decide(&self.game, &self.context())?;
            check_log_room(self.game.version(), &decision.events)?;
            match self.commit(decision).await {
                Ok(v) => return Ok(v),
                Err(StoreError::VersionConflict(v)) => {
                    tracing::info!(v, "lost the race for a version; re-judging");
                    self.catch_up_with_presence().await?;
                }
                Err(other) => return Err(other.into()),
            }
        }
        Err(RoomError::Busy)
    }

    /// Persists a decision's events, then keeps its game and broadcasts them.
    async fn commit(&mut self, decision: Decision) -> Result<Version, StoreError> {
        if decision.is_empty() {
            return Ok(self.game.version());
        }
        let at = decision.at;
        let first = self.game.version() + 1;
        // Serialized once here: the same text is stored and, after the
        // commit, broadcast.
        let (stored, frames): (Vec<StoredEvent>, Vec<String>) = decision
            .events
            .iter()
            .zip(first..)
            .map(|(event, v)| {
                let ((kind, data), frame) = event.encode(v);
                (StoredEvent { v, at, kind, data }, frame)
            })
            .unzip();
        let appending = Instant::now();
        // A game's end is rated (if it is) in the transaction that appends it.
        let ends = decision
            .events
            .iter()
            .any(|e| matches!(e, Event::GameOver { .. }));
        let online = self.game.mode() == Mode::Online;
        let rating = (ends && online).then(|| RateOnCommit::new(self.game.id()));
        let summary = crate::room::summary::of(&decision.game);
        let summary = (self.summary_stored.as_ref() != Some(&summary)).then_some(summary);
        let (log, room) = (&self.store.log, self.game.id());
        // A decision rates a game's end or opens its rematch, never both: a rematch follows the
        // end, in a later action.
        let work = match rating.clone() {
            Some(rating) => Some(rating as Arc<dyn InCommit>),
            None => self.rematch_room_in(&decision.events),
        };
        let passed = turn_passed(&self.game, &decision.game);
        let work = with_turn(work, &self.game, &decision.game);
        let appended = log
            .append_with(room, &stored, summary.as_deref(), work)
            .await;
        match appended {
            Err(StoreError::VersionConflict(v)) => return Err(StoreError::VersionConflict(v)),
            Err(error) => {
                telemetry::store_failed(error.kind());
                // Perhaps committed all the same (a database that did not answer in time).
                self.unsure = Some(stored);
                self.summary_stored = None;
                return Err(error);
            }
            Ok(()) => {}
        }
        telemetry::events_committed(self.game.mode(), &decision.events, appending.elapsed());
        if summary.is_some() {
            self.summary_stored = summary;
        }
        if let Some(side) = passed {
            self.config.notices.turn(self.game.id(), side);
        }
        self.game = decision.game;
        for ((event, v), frame) in decision.events.iter().zip(first..).zip(frames) {
            self.send_event(v, event, frame);
        }
        if let Some(changes) = rating.and_then(|work| work.rated()) {
            let text = Reply::Rated(changes).to_json().into();
            self.send(Frame {
                v: None,
                text,
                rematch: None,
                readers: Readers::ALL,
                withheld: None,
            });
        }
        Ok(self.game.version())
    }

    /// Passes on what another instance appended, in version order, and
    /// re-asserts the presence of the players connected here if that news
    /// said otherwise (the other instance judged before it could see them).
    pub(super) async fn heard(&mut self, up_to: Option<Version>) {
        // Our own appends come back as news too: nothing to read.
        if up_to.is_some_and(|v| v <= self.game.version()) {
            return;
        }
        if let Err(error) = self.catch_up_with_presence().await {
            tracing::error!(%error, "could not read news from the log");
            return;
        }
        for side in Side::BOTH {
            if self.person_connected(side) && !self.game.is_connected(side) {
                // Perhaps our hold was lost with its session: take it again.
                self.share_presence(Seat::side(side)).await;
                self.record_presence().await;
            }
        }
    }

    /// Reads and applies what other writers appended after our version.
    pub(super) async fn catch_up(&mut self) -> Result<(), RoomError> {
        let missed = self
            .store
            .log
            .events_after(self.game.id(), self.game.version())
            .await?;
        if !missed.is_empty() {
            // Another writer's append wrote its own summary row.
            self.summary_stored = None;
        }
        let mut started = false;
        for stored in missed {
            let event = decode(&stored)?;
            started |= matches!(event, Event::Started { .. });
            self.game.apply(stored.v, stored.at, &event)?;
            self.send_event(stored.v, &event, event.frame(stored.v));
        }
        // Another writer started the game, so someone took a seat there:
        // learn who sits where before judging anyone's action.
        if started {
            self.reload_seats().await?;
        }
        Ok(())
    }

    /// [`RoomTask::catch_up`], and if the log's presence changed meanwhile (another instance
    /// gained or lost a player), asks again which sides are held elsewhere.
    pub(super) async fn catch_up_with_presence(&mut self) -> Result<(), RoomError> {
        let logged = |game: &Game| Side::BOTH.map(|side| game.is_connected(side));
        let before = logged(&self.game);
        self.catch_up().await?;
        if logged(&self.game) != before {
            self.refresh_elsewhere().await;
        }
        Ok(())
    }

    /// Tells every connection about an event the game already holds.
    fn send_event(&mut self, v: Version, event: &Event, frame: String) {
        match event {
            Event::Started { .. } => tracing::info!(v, "game started"),
            Event::GameOver { winner, reason, .. } => {
                tracing::info!(v, ?winner, ?reason, "game over");
            }
            _ => {}
        }
        let rematch = match event {
            Event::Rematch { room } => Some(Arc::from(room.as_str())),
            _ => None,
        };
        let readers = self.game.readers(event, v);
        let withheld = (readers != Readers::ALL)
            .then(|| withheld(event).map(|event| event.frame(v).into()))
            .flatten();
        self.send(Frame {
            v: Some(v),
            text: frame.into(),
            rematch,
            readers,
            withheld,
        });
    }

    pub(super) fn send(&self, frame: Frame) {
        self.frames.send(Arc::new(frame));
    }
}

/// The side a correspondence game's turn passes to with this decision (the game starts, or the
/// side to move changes), for Web Push; not a turn's extra throws, nor the game's end.
fn turn_passed(before: &Game, after: &Game) -> Option<Side> {
    let side = correspondence_turn(after)?.side;
    (correspondence_turn(before).map(|turn| turn.side) != Some(side)).then_some(side)
}

/// `work`, and the correspondence game's turn if the decision changes it (a turn ends, the game
/// starts or ends), in the same commit.
fn with_turn(
    work: Option<Arc<dyn InCommit>>,
    before: &Game,
    after: &Game,
) -> Option<Arc<dyn InCommit>> {
    let turn = correspondence_turn(after);
    if !after.is_correspondence() || turn == correspondence_turn(before) {
        return work;
    }
    let room = after.id().to_owned();
    let turn: Arc<dyn InCommit> = Arc::new(TurnOnCommit { room, turn });
    Some(match work {
        Some(work) => Arc::new(AllOnCommit(vec![work, turn])),
        None => turn,
    })
}

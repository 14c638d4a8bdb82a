//! Who is in a room, for its task: the players connected here or on another live instance (the
//! decision's [`Context`]), shared with the other instances and logged as `presence` at the
//! pace `bounds` allows, and the spectators here and elsewhere.

use tokio::time::Instant;

use super::RoomTask;
use super::{Frame, now_ms};
use crate::engine::Side;
use crate::protocol::{Reply, RoomSummary, Seat};
use crate::room::bot::Bot;
use crate::room::game::{Context, Readers, index};

impl RoomTask {
    /// Whether a person holding `side` has a connection here.
    pub(super) fn person_connected(&self, side: Side) -> bool {
        self.conns.values().any(|conn| conn.seat.holds(side))
    }

    /// Whether the log says a person is connected though not here: to
    /// another instance, or to one that died. (The bot is always here.)
    pub(super) fn connected_elsewhere_by_the_log(&self) -> bool {
        let bot = self.game.bot().map(|bot: Bot| bot.side);
        Side::BOTH.into_iter().any(|side| {
            bot != Some(side) && self.game.is_connected(side) && !self.person_connected(side)
        })
    }

    /// What a decision needs from outside the game: the clock and who is
    /// connected: here, to another live instance, or the bot (always here).
    pub(super) fn context(&self) -> Context {
        let bot = self.game.bot().map(|bot: Bot| bot.side);
        let connected = |side: Side| {
            bot == Some(side) || self.person_connected(side) || self.elsewhere[index(side)]
        };
        Context {
            now: now_ms(),
            abandon_after_ms: self.config.abandon_after.as_millis() as i64,
            idle_turn_after_ms: self.config.idle_turn_after.as_millis() as i64,
            connected: [connected(Side::Black), connected(Side::White)],
        }
    }

    /// Asks the store which sides another live instance holds connections of.
    pub(super) async fn refresh_elsewhere(&mut self) {
        // One instance: nobody is connected elsewhere.
        let Some(cluster) = self.store.cluster.clone() else {
            return;
        };
        for side in Side::BOTH {
            let held = match cluster.held_elsewhere(self.game.id(), side).await {
                Ok(held) => held,
                Err(error) => {
                    // Keep what the log says rather than guess either way.
                    tracing::warn!(%error, "could not ask where players are connected");
                    self.game.is_connected(side)
                }
            };
            self.elsewhere[index(side)] = held;
        }
    }

    /// Tells the store which sides of `seat` have a connection here now, so
    /// that other instances count them ([`Cluster::hold_presence`](crate::store::Cluster::hold_presence)).
    pub(super) async fn share_presence(&self, seat: Seat) {
        // One instance: there is nobody to tell.
        let Some(cluster) = &self.store.cluster else {
            return;
        };
        for side in Side::BOTH.into_iter().filter(|side| seat.holds(*side)) {
            let held = self.person_connected(side);
            if let Err(error) = cluster.hold_presence(self.game.id(), side, held).await {
                tracing::warn!(%error, "could not share presence with other instances");
            }
        }
    }

    /// The periodic check of a player the log says is connected elsewhere: still there?
    pub(super) async fn check_presence(&mut self) {
        self.refresh_elsewhere().await;
        self.record_presence().await;
    }

    /// Logs a `presence` event if a player came or went, and tells everyone
    /// the number of spectators if that changed.
    pub(super) async fn connections_changed(&mut self, seat: Seat) {
        if seat == Seat::Spectator {
            self.watchers
                .set_here(self.game.id(), self.spectators_here());
            self.tell_watchers();
            return;
        }
        self.record_presence().await;
    }

    /// Logs a `presence` event if the log's differs from who is connected, now or, if the room
    /// logged as many as it may lately, once its pace allows.
    pub(super) async fn record_presence(&mut self) {
        match self.presence_pace.next_at(Instant::now()) {
            Some(next) => self.presence_due = Some(next),
            None => self.log_presence().await,
        }
    }

    /// Logs a `presence` event now if the log's differs from who is connected.
    pub(super) async fn log_presence(&mut self) {
        self.presence_due = None;
        let before = self.game.version();
        let result = self
            .commit_with_retry(|game, ctx| Ok(game.decide_presence(ctx)))
            .await;
        match result {
            // Only these count: the presence that rides along with a player's action (a new
            // `claim_at` each turn) is bounded by the game itself.
            Ok(v) if v > before => self.presence_pace.logged(Instant::now()),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "presence not recorded"),
        }
    }

    /// The room's spectators, here and on the other live instances.
    pub(super) fn spectators(&self) -> usize {
        self.spectators_here() + self.watchers.elsewhere(self.game.id())
    }

    fn spectators_here(&self) -> usize {
        self.conns
            .values()
            .filter(|conn| conn.seat == Seat::Spectator)
            .count()
    }

    /// Tells every connection how many spectators the room has.
    pub(super) fn tell_watchers(&self) {
        let count = self.spectators();
        self.send(Frame {
            v: None,
            text: Reply::Watchers { count }.to_json().into(),
            rematch: None,
            readers: Readers::ALL,
            withheld: None,
        });
    }

    pub(super) fn summary(&self) -> RoomSummary {
        self.game.summary(self.spectators())
    }
}

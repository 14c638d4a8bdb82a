//! How long a room's log may grow: every event a client can cause without playing has a bound,
//! and the log as a whole has a hard cap (issue 28).
//!
//! - `presence`: the room task logs who is connected at most [`PRESENCE_BURST`] times in any
//!   [`PRESENCE_WINDOW`] ([`PresencePace`]; the changes in between are logged together when the
//!   window allows: a seat that reconnects in a loop logs one event per 2 s, not two per socket),
//!   and not at all once the log holds [`CHATTER_UNTIL`] events. The burst keeps a player who
//!   comes back after a drop from being shown absent.
//! - `client-seed`: a repeat of the seed a side has logs nothing, and a side may set at most
//!   [`MAX_CLIENT_SEEDS`] before the first throw (then `client_seed_locked`).
//! - draw and rematch offers were bounded already: one draw offer per turn of one's own, one
//!   rematch offer per side, one rematch.
//! - chat (issue 33): each player logs at most [`MAX_PLAYER_CHAT_EVENTS`] chat events (messages,
//!   choices, mutes) and the spectators together [`MAX_SPECTATOR_CHAT_EVENTS`] messages, none
//!   past [`SPECTATORS_CHAT_UNTIL`] events (issue 44: budgets apart, so that a crowd of
//!   spectators or the other player never silences a player); nobody chats once the log holds
//!   [`CHATTER_UNTIL`] events, so talk never takes the room a game needs; a state shows the last
//!   [`CHAT_SHOWN`] messages; a sender may not repeat either of their last two nor send more than
//!   [`FLOOD_MESSAGES`] in [`FLOOD_WINDOW_MS`], and a player changes their choices as often; a
//!   player mutes at most [`MAX_MUTES`] speakers. Every chat frame also counts against the
//!   seat's message budget like any other.
//! - the cap: a decision that would take the log past [`MAX_ROOM_EVENTS`] is refused
//!   (`room_log_full`) unless it ends the game or opens its rematch, so resigning always works.
//!   Past the cap at most [`MAX_PAST_THE_CAP`] events follow (a move with the game's end, two
//!   rematch offers and the rematch), so no room's log exceeds [`LOG_BOUND`] events.
//!
//! Why these numbers: a game between the engine's levels lasts 172 throws on average (docs/AI.md),
//! some 350 events with its moves; 4,000 events leave a game ten times that long its presence,
//! and 10,000 leave it room to finish. A summary that replays 10,000 events took 45–81 ms on the
//! shared 2-core machine under load (docs/PERFORMANCE.md, "Bounded logs"): bounded, and run on the
//! blocking pool, off the async workers, for at most [`REPLAY_TIMEOUT`]; summaries are not
//! replayed at all (a row kept with the log, `room/summary.rs`).

use std::collections::VecDeque;
use std::time::Duration;

use tokio::time::Instant;

use super::error::Refusal;
use crate::protocol::{Event, Version};

/// The longest a replay of a room's log (a record, a room loaded) may take before the request
/// is answered `503`: some 30 times the slowest replay of a full log measured under load.
pub const REPLAY_TIMEOUT: Duration = Duration::from_secs(3);

/// The events a room's log may hold before only the game's end and its rematch are logged.
pub const MAX_ROOM_EVENTS: Version = 10_000;

/// Past this many events, changes of presence are no longer logged.
pub const CHATTER_UNTIL: Version = 4_000;

/// Client seeds each side may set before the first throw.
pub const MAX_CLIENT_SEEDS: u8 = 8;

/// Chat events (messages, choices, mutes) each player may log in a room: at the flood limit's
/// pace, some 17 minutes of non-stop talk, more than any game's.
pub const MAX_PLAYER_CHAT_EVENTS: u32 = 500;

/// Messages the spectators of a room may log together.
pub const MAX_SPECTATOR_CHAT_EVENTS: u32 = 1_000;

/// Past this many events the spectators' channel is full: the players' budgets keep the room
/// between it and [`CHATTER_UNTIL`].
pub const SPECTATORS_CHAT_UNTIL: Version = CHATTER_UNTIL - 2 * MAX_PLAYER_CHAT_EVENTS as Version;

/// Messages a state shows (and a room keeps in memory), the newest.
pub const CHAT_SHOWN: usize = 200;

/// A sender may send this many messages within [`FLOOD_WINDOW_MS`]; one more is a flood.
pub const FLOOD_MESSAGES: usize = 5;
pub const FLOOD_WINDOW_MS: i64 = 10_000;

/// Speakers each player may mute.
pub const MAX_MUTES: usize = 32;

/// A room logs at most [`PRESENCE_BURST`] `presence` events in any window this long.
pub const PRESENCE_WINDOW: Duration = Duration::from_secs(12);
pub const PRESENCE_BURST: usize = 6;

/// Events that may follow the cap: the winning move and `game-over`, two rematch offers and the
/// rematch.
pub const MAX_PAST_THE_CAP: Version = 5;

/// The most events any room's log holds.
pub const LOG_BOUND: Version = MAX_ROOM_EVENTS + MAX_PAST_THE_CAP;

/// Whether a log at version `v` may take a decision's `events`.
pub fn check_log_room(v: Version, events: &[Event]) -> Result<(), Refusal> {
    let fits = v + events.len() as Version <= MAX_ROOM_EVENTS;
    if fits || events.iter().any(ends_the_game) {
        Ok(())
    } else {
        Err(Refusal::RoomLogFull(MAX_ROOM_EVENTS))
    }
}

/// Events that end a game or open its rematch: each is logged at most once per side.
fn ends_the_game(event: &Event) -> bool {
    matches!(
        event,
        Event::GameOver { .. } | Event::RematchOffered { .. } | Event::Rematch { .. }
    )
}

/// When a room may log its next `presence` event: the times of its last [`PRESENCE_BURST`].
#[derive(Debug, Default)]
pub struct PresencePace {
    logged: VecDeque<Instant>,
}

impl PresencePace {
    /// The earliest moment the next one may be logged; `None`: now.
    pub fn next_at(&self, now: Instant) -> Option<Instant> {
        let oldest = *self.logged.front()?;
        let full = self.logged.len() >= PRESENCE_BURST;
        (full && oldest + PRESENCE_WINDOW > now).then_some(oldest + PRESENCE_WINDOW)
    }

    /// Notes a `presence` event logged at `at`.
    pub fn logged(&mut self, at: Instant) {
        if self.logged.len() >= PRESENCE_BURST {
            self.logged.pop_front();
        }
        self.logged.push_back(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_goes_at_once_and_the_next_waits_for_the_window() {
        let start = Instant::now();
        let mut pace = PresencePace::default();
        for n in 0..PRESENCE_BURST as u32 {
            let at = start + Duration::from_millis(10) * n;
            assert_eq!(pace.next_at(at), None, "event {n} of the burst");
            pace.logged(at);
        }
        let late = start + Duration::from_millis(100);
        assert_eq!(pace.next_at(late), Some(start + PRESENCE_WINDOW));
        assert_eq!(pace.next_at(start + PRESENCE_WINDOW), None);
    }
}

//! A timed game's clocks: each side's time as the last event carrying [`Clocks`] said, the
//! side to move's running down from that event's moment; the deadline the room task sleeps
//! until, the timeout it then decides, the clocks resumed after a restart, and the pause a
//! drain makes while the player on turn moves to another instance.

use super::{Decision, Game, Next, index};
use crate::engine::Side;
use crate::protocol::{ClockState, Clocks, EndReason, Event, PAUSE_LIMIT_MS, TimeControl, UnixMs};

impl Game {
    /// The side whose clock runs: the side to move, while a timed game is being played and not
    /// paused.
    pub fn running(&self) -> Option<Side> {
        self.clock
            .is_some_and(|clock| !clock.paused && self.is_playing())
            .then(|| self.position.turn())
    }

    /// The side to move, while a drain has paused the clocks (see [`Game::decide_pause`]).
    pub fn paused_for(&self) -> Option<Side> {
        self.clock
            .is_some_and(|clock| clock.paused && self.is_playing())
            .then(|| self.position.turn())
    }

    /// When a pause ends even if the player on turn is not back: a pause never stalls a game.
    pub fn pause_ends(&self) -> Option<UnixMs> {
        self.paused_for()?;
        self.clock.map(|clock| clock.since + PAUSE_LIMIT_MS)
    }

    /// Both sides' time at `now`; with `turn_of`, that side's turn ends then and it gets the
    /// increment (a correspondence clock is set back to the whole allowance instead). `None` in
    /// untimed games.
    pub(super) fn clocks_at(&self, now: UnixMs, turn_of: Option<Side>) -> Option<Clocks> {
        let clock = self.clock?;
        let mut remaining = clock.remaining;
        if let Some(side) = self.running() {
            remaining[index(side)] -= now - clock.since;
        }
        if let Some(side) = turn_of {
            let left = &mut remaining[index(side)];
            *left = match clock.control.is_correspondence() {
                true => clock.control.initial_ms(),
                false => *left + clock.control.increment_ms(),
            };
        }
        Some(Clocks {
            black: remaining[0],
            white: remaining[1],
        })
    }

    /// When the side to move runs out of time, in a timed game being played.
    pub fn deadline(&self) -> Option<UnixMs> {
        let clock = self.clock?;
        let side = self.running()?;
        Some(clock.since + clock.remaining[index(side)])
    }

    /// Whether the game's clock gives days per move: its room need not stay in memory while
    /// the clock runs, and nobody's absence is counted (the allowance is the claim).
    pub fn is_correspondence(&self) -> bool {
        self.room.clock.is_some_and(TimeControl::is_correspondence)
    }

    /// When the task must next ask [`Game::decide_clock`]: the side to move's deadline, or the
    /// end of a pause.
    pub fn clock_due(&self) -> Option<UnixMs> {
        self.deadline().or_else(|| self.pause_ends())
    }

    /// Whether the side to move has no time left at `now`.
    pub fn is_flagged(&self, now: UnixMs) -> bool {
        self.deadline().is_some_and(|deadline| deadline <= now)
    }

    /// The `timeout` that ends the game if the side to move has run out of time at `now`
    /// (an empty decision otherwise).
    pub fn decide_timeout(&self, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        if self.is_flagged(now) {
            next.push_over(self.position.turn().other().into(), EndReason::Timeout);
        }
        next.done()
    }

    /// The `resumed` event for a timed game loaded while it was being played, or paused: the
    /// clocks as they were at the last logged event (a paused clock stands still), so the time
    /// nothing was logged (the server was down) or the pause lasted is charged to nobody. Empty
    /// for other games, and for a side that had already run out, whose timeout is then decided.
    /// A correspondence clock is never resumed: it runs in days of the wall clock, whoever holds
    /// the room in memory (nobody, mostly), so a load gives no time back (see
    /// [`Game::is_correspondence`]).
    pub fn decide_resume(&self, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        if let Some(clocks) = self.clocks_at(self.at, None)
            && !self.is_correspondence()
            && (self.running().is_some() || self.paused_for().is_some())
            && !self.is_flagged(self.at)
        {
            next.push(Event::Resumed { clocks });
        }
        next.done()
    }

    /// The `paused` event that stops both clocks at `now` while the player on turn moves from a
    /// draining instance to another (the operator's doing, never a client's). Empty unless a
    /// clock runs, and for a side that has already run out; never in correspondence, where a
    /// move to another instance costs seconds of days.
    pub fn decide_pause(&self, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        if let Some(clocks) = self.clocks_at(now, None)
            && !self.is_correspondence()
            && self.running().is_some()
            && !self.is_flagged(now)
        {
            next.push(Event::Paused { clocks });
        }
        next.done()
    }

    /// What the clock decides by itself at `now`: a pause that has lasted its limit ends,
    /// otherwise the side to move may have run out of time.
    pub fn decide_clock(&self, now: UnixMs) -> Decision {
        if self.pause_ends().is_some_and(|ends| ends <= now) {
            self.decide_resume(now)
        } else {
            self.decide_timeout(now)
        }
    }

    /// The clocks an event carries, from `at` on. A paused clock stays paused (a move still
    /// played on a draining instance starts no clock) until `resumed`.
    pub(super) fn set_clocks(&mut self, clocks: Option<Clocks>, at: UnixMs) {
        if let (Some(clock), Some(clocks)) = (&mut self.clock, clocks) {
            clock.remaining = [clocks.black, clocks.white];
            clock.since = at;
        }
    }

    /// `paused` or `resumed`: the clocks they carry, standing or running from `at`.
    pub(super) fn set_paused(&mut self, clocks: Clocks, at: UnixMs, paused: bool) {
        self.set_clocks(Some(clocks), at);
        if let Some(clock) = &mut self.clock {
            clock.paused = paused;
        }
    }

    pub(super) fn clock_state(&self, now: UnixMs) -> Option<ClockState> {
        let control = self.room.clock?;
        // Before the start each side has its whole time, and neither runs.
        let whole = Clocks {
            black: control.initial_ms(),
            white: control.initial_ms(),
        };
        Some(ClockState {
            control,
            remaining: self.clocks_at(now, None).unwrap_or(whole),
            running: self.running(),
        })
    }
}

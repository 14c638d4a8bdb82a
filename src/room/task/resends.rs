//! Actions resent after a reconnection: a client that lost the answer with its socket sends the
//! action again with the same `id` (and the same `client` name in its hello). The room
//! remembers its last few actions by that key, and answers a resend with the first one's
//! version instead of judging it again, so nothing is applied twice.
//!
//! An action answered `unavailable` (the database did not answer its append in time) may still
//! be committed when the database answers again: its bytes were sent, and the store's writer
//! goes on with them (`store/deadline.rs`). So the room remembers the events it tried to append
//! too, and a resend reads the log first: if they are there (same versions, kinds, data and
//! times), it is answered with their last version. If the log does not reach them yet, the
//! resend is judged again, but stopped as soon as the log reaches their version (the first try,
//! committed meanwhile, shows up as a version conflict), and looked for again. Found by the
//! `pg-hang` fault run, seed 1: a throw answered `unavailable`, committed late, and thrown
//! again when resent after a pass (docs/RELIABILITY.md).
//!
//! Kept in the room's task only: a resend that reaches a task loaded since (a restart, another
//! instance) is judged again, and the rules refuse most repeats (`already_rolled`,
//! `not_your_turn`, no throw to move with).

use std::collections::VecDeque;

use super::RoomTask;
use crate::protocol::{Action, Seat, Version};
use crate::room::error::RoomError;
use crate::store::StoredEvent;

/// How many actions a room remembers: a resend follows its first send within one
/// reconnection, and a client has few actions in flight.
const REMEMBERED: usize = 8;

/// How many tries of one action whose outcome is unknown a room remembers. Each is made only
/// after the log was read and did not hold the others, all at the same version: more than one
/// needs a database that comes back and goes again between a resend's read and its append.
const TRIES: usize = 4;

/// What became of an action sent under a resend key.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Outcome {
    /// Applied: its last event is at this version.
    Applied(Version),
    /// Appended without an answer from the database: the events of each try, which may be
    /// committed yet. Every try starts at the same version.
    Unsure(Vec<Vec<StoredEvent>>),
}

/// One action sent under a key: who sent it, the key, what it was, and what became of it.
struct Sent {
    seat: Seat,
    key: Box<str>,
    action: Action,
    outcome: Outcome,
}

/// A room's last actions that carried a resend key; empty (no allocation) in rooms whose
/// clients give none.
#[derive(Default)]
pub(super) struct Answered(VecDeque<Sent>);

impl Answered {
    /// What became of the same action, sent before by the same seat under the same key.
    pub(super) fn earlier(&self, seat: Seat, key: &str, action: Action) -> Option<&Outcome> {
        self.find(seat, key, action).map(|i| &self.0[i].outcome)
    }

    /// Remembers that an action was applied, in place of what was known of it before.
    pub(super) fn applied(&mut self, seat: Seat, key: Box<str>, action: Action, v: Version) {
        self.remember(seat, key, action, Outcome::Applied(v));
    }

    /// Remembers one more try of an action whose outcome is unknown (the oldest beyond
    /// [`TRIES`] is forgotten).
    pub(super) fn tried(
        &mut self,
        seat: Seat,
        key: Box<str>,
        action: Action,
        events: Vec<StoredEvent>,
    ) {
        let mut tries = match self.earlier(seat, &key, action) {
            Some(Outcome::Unsure(tries)) => tries.clone(),
            _ => Vec::new(),
        };
        if tries.len() == TRIES {
            tries.remove(0);
        }
        tries.push(events);
        self.remember(seat, key, action, Outcome::Unsure(tries));
    }

    fn find(&self, seat: Seat, key: &str, action: Action) -> Option<usize> {
        self.0
            .iter()
            .position(|a| a.seat == seat && &*a.key == key && a.action == action)
    }

    /// Keeps what became of an action, forgetting the oldest past [`REMEMBERED`].
    fn remember(&mut self, seat: Seat, key: Box<str>, action: Action, outcome: Outcome) {
        if let Some(i) = self.find(seat, &key, action) {
            self.0.remove(i);
        }
        if self.0.len() == REMEMBERED {
            self.0.pop_front();
        }
        self.0.push_back(Sent {
            seat,
            key,
            action,
            outcome,
        });
    }
}

/// The version a try ended at if the log, read from the tries' first version, begins with its
/// events.
fn found_in(tries: &[Vec<StoredEvent>], logged: &[StoredEvent]) -> Option<Version> {
    tries
        .iter()
        .find(|events| logged.starts_with(events))
        .and_then(|events| events.last())
        .map(|event| event.v)
}

impl RoomTask {
    /// Judges and commits an action sent under a resend key, unless it was sent before: then
    /// it is answered as it was, or from the log if its outcome was unknown.
    pub(super) async fn act_resendable(
        &mut self,
        seat: Seat,
        key: Box<str>,
        action: Action,
    ) -> Result<Version, RoomError> {
        // Only this action's own append may leave events here.
        self.unsure = None;
        let acted = match self.answered.earlier(seat, &key, action).cloned() {
            Some(Outcome::Applied(v)) => return Ok(v),
            Some(Outcome::Unsure(tries)) => self.act_again(seat, action, &tries).await,
            None => self.act_once(seat, action, None).await,
        };
        match &acted {
            Ok(v) => self.answered.applied(seat, key, action, *v),
            Err(_) => {
                if let Some(events) = self.unsure.take() {
                    self.answered.tried(seat, key, action, events);
                }
            }
        }
        acted
    }

    /// An action resent after tries whose outcome is unknown: answered from the log if one of
    /// them is there, judged again if none can be any more.
    async fn act_again(
        &mut self,
        seat: Seat,
        action: Action,
        tries: &[Vec<StoredEvent>],
    ) -> Result<Version, RoomError> {
        let first = tries[0][0].v;
        self.catch_up_with_presence().await?;
        if self.game.version() < first {
            // Not in the log yet, but a try may still be committed: judged again, stopped if
            // the log reaches the tries' version meanwhile.
            match self.act_once(seat, action, Some(first)).await {
                Err(RoomError::Stale(_)) => {}
                acted => return acted,
            }
        }
        let logged = self
            .store
            .log
            .events_after(self.game.id(), first - 1)
            .await?;
        match found_in(tries, &logged) {
            Some(v) => Ok(v),
            // Other events hold those versions: no try can be committed any more.
            None => self.act_once(seat, action, None).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(v: Version, kind: &str) -> StoredEvent {
        StoredEvent {
            v,
            at: 1000,
            kind: kind.into(),
            data: "{}".into(),
        }
    }

    #[test]
    fn a_resend_is_found_by_seat_key_and_action_and_the_oldest_are_forgotten() {
        let mut answered = Answered::default();
        answered.applied(Seat::Black, "c\n1".into(), Action::Roll, 3);
        let applied = |v| Some(Outcome::Applied(v));
        assert_eq!(
            answered.earlier(Seat::Black, "c\n1", Action::Roll).cloned(),
            applied(3)
        );
        assert_eq!(answered.earlier(Seat::White, "c\n1", Action::Roll), None);
        assert_eq!(answered.earlier(Seat::Black, "c\n2", Action::Roll), None);
        assert_eq!(answered.earlier(Seat::Black, "c\n1", Action::Resign), None);
        for n in 0..REMEMBERED as u64 {
            answered.applied(Seat::White, format!("c\n{n}").into(), Action::Roll, 10 + n);
        }
        assert_eq!(answered.earlier(Seat::Black, "c\n1", Action::Roll), None);
        assert_eq!(
            answered.earlier(Seat::White, "c\n1", Action::Roll).cloned(),
            applied(11)
        );
    }

    #[test]
    fn tries_accumulate_until_the_action_is_applied() {
        let mut answered = Answered::default();
        let key = || Box::<str>::from("c\n1");
        for n in 0..=TRIES as u64 {
            answered.tried(
                Seat::Both,
                key(),
                Action::Roll,
                vec![event(5, &n.to_string())],
            );
        }
        let Some(Outcome::Unsure(tries)) = answered.earlier(Seat::Both, "c\n1", Action::Roll)
        else {
            panic!("tries remembered");
        };
        let kinds: Vec<&str> = tries.iter().map(|t| t[0].kind.as_str()).collect();
        assert_eq!(kinds, ["1", "2", "3", "4"], "the oldest forgotten");
        answered.applied(Seat::Both, key(), Action::Roll, 5);
        assert_eq!(answered.0.len(), 1);
        assert_eq!(
            answered.earlier(Seat::Both, "c\n1", Action::Roll),
            Some(&Outcome::Applied(5))
        );
    }

    #[test]
    fn a_try_is_found_only_if_the_log_holds_its_very_events() {
        let tried = vec![event(5, "rolled"), event(6, "passed")];
        let mut other = vec![event(5, "rolled")];
        other[0].data = r#"{"n":1}"#.into();
        let tries = [other, tried.clone()];
        let mut logged = tried.clone();
        logged.push(event(7, "presence"));
        assert_eq!(found_in(&tries, &logged), Some(6), "the try the log holds");
        let mut later = tried.clone();
        later[0].at += 1;
        assert_eq!(found_in(&tries[1..], &later), None, "another time");
        assert_eq!(found_in(&tries[1..], &tried[..1]), None, "half of it");
    }
}

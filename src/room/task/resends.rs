//! Actions resent after a reconnection: a client that lost the answer with its socket sends the
//! action again with the same `id` (and the same `client` name in its hello). The room
//! remembers its last few answered actions by that key, and answers a resend with the first
//! one's version instead of judging it again, so nothing is applied twice.
//!
//! Kept in the room's task only: a resend that reaches a task loaded since (a restart, another
//! instance) is judged again, and the rules refuse most repeats (`already_rolled`,
//! `not_your_turn`, no throw to move with).

use std::collections::VecDeque;

use crate::protocol::{Action, Seat, Version};

/// How many answered actions a room remembers: a resend follows its first send within one
/// reconnection, and a client has few actions in flight.
const REMEMBERED: usize = 8;

/// One answered action: who sent it, under which key, what it was, and its last event.
struct Answer {
    seat: Seat,
    key: Box<str>,
    action: Action,
    v: Version,
}

/// A room's last answered actions that carried a resend key; empty (no allocation) in rooms
/// whose clients give none.
#[derive(Default)]
pub(super) struct Answered(VecDeque<Answer>);

impl Answered {
    /// The version the same action, sent before by the same seat under the same key, ended at.
    pub(super) fn first(&self, seat: Seat, key: &str, action: Action) -> Option<Version> {
        self.0
            .iter()
            .find(|a| a.seat == seat && &*a.key == key && a.action == action)
            .map(|a| a.v)
    }

    /// Remembers an action that was applied, forgetting the oldest past [`REMEMBERED`].
    pub(super) fn note(&mut self, seat: Seat, key: Box<str>, action: Action, v: Version) {
        if self.0.len() == REMEMBERED {
            self.0.pop_front();
        }
        self.0.push_back(Answer {
            seat,
            key,
            action,
            v,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resend_is_found_by_seat_key_and_action_and_the_oldest_are_forgotten() {
        let mut answered = Answered::default();
        answered.note(Seat::Black, "c\n1".into(), Action::Roll, 3);
        assert_eq!(answered.first(Seat::Black, "c\n1", Action::Roll), Some(3));
        assert_eq!(answered.first(Seat::White, "c\n1", Action::Roll), None);
        assert_eq!(answered.first(Seat::Black, "c\n2", Action::Roll), None);
        assert_eq!(answered.first(Seat::Black, "c\n1", Action::Resign), None);
        for n in 0..REMEMBERED as u64 {
            answered.note(Seat::White, format!("c\n{n}").into(), Action::Roll, 10 + n);
        }
        assert_eq!(answered.first(Seat::Black, "c\n1", Action::Roll), None);
        assert_eq!(answered.first(Seat::White, "c\n1", Action::Roll), Some(11));
    }
}

//! The lobby's changes between two flushes, sent to every lobby socket as one `changes` frame.
//!
//! Seeks come and go far faster than a page needs to hear of each (50 posts and 50 takes a
//! second would be 100 frames a second to every socket). So each change is only noted here,
//! and every [`super::FLUSH_EVERY`] whatever changed goes out as one frame, serialized once.
//! A seek posted and gone again within one interval is left out altogether, unless a socket
//! was handed the list in between (it may have shown the seek, so it must hear it go: each
//! added seek remembers how many times the list had been handed out when it was added) or a
//! socket holds it (its creator's page, which learnt of it from the post's answer).

use tokio::time::Instant;

use crate::protocol::{LobbyFrame, LobbyGame, Seek, SeekGone, SeekLeft};

/// The changes since the last flush.
#[derive(Default)]
pub(super) struct Batch {
    added: Vec<Added>,
    gone: Vec<SeekLeft>,
    games: Option<Vec<LobbyGame>>,
}

struct Added {
    seek: Seek,
    /// The list's hand-out count when this seek was added.
    handed_out: u64,
    /// When its post arrived, if it was posted on this instance.
    received: Option<Instant>,
}

/// A flushed batch: its frame, and when the posts of the seeks in it arrived.
pub(super) struct Flushed {
    pub frame: LobbyFrame,
    pub received: Vec<Instant>,
}

impl Batch {
    pub fn add(&mut self, seek: Seek, handed_out: u64, received: Option<Instant>) {
        self.added.push(Added {
            seek,
            handed_out,
            received,
        });
    }

    /// Notes that a seek left the list; `handed_out` is the list's hand-out count now, `held`
    /// whether a socket holds the seek.
    pub fn remove(&mut self, room: &str, why: SeekGone, handed_out: u64, held: bool) {
        if let Some(i) = self.added.iter().position(|a| a.seek.room == room) {
            let added = self.added.swap_remove(i);
            if added.handed_out == handed_out && !held {
                // Nobody can have seen it.
                return;
            }
        }
        self.gone.push(SeekLeft {
            room: room.to_string(),
            why,
        });
    }

    pub fn games(&mut self, games: Vec<LobbyGame>) {
        self.games = Some(games);
    }

    /// Everything noted since the last flush as one frame (`None` if nothing changed), the
    /// batch emptied.
    pub fn flush(&mut self) -> Option<Flushed> {
        let Batch { added, gone, games } = std::mem::take(self);
        if added.is_empty() && gone.is_empty() && games.is_none() {
            return None;
        }
        let received = added.iter().filter_map(|a| a.received).collect();
        let added = added.into_iter().map(|a| a.seek).collect();
        Some(Flushed {
            frame: LobbyFrame::Changes { added, gone, games },
            received,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::SideChoice;

    fn seek(room: &str) -> Seek {
        Seek {
            room: room.into(),
            side: SideChoice::Random,
            clock: None,
            at: 1,
            rated: false,
            range: None,
            player: None,
        }
    }

    fn parts(batch: &mut Batch) -> (Vec<String>, Vec<String>) {
        match batch.flush().map(|f| f.frame) {
            Some(LobbyFrame::Changes { added, gone, .. }) => (
                added.into_iter().map(|s| s.room).collect(),
                gone.into_iter().map(|g| g.room).collect(),
            ),
            Some(other) => panic!("{other:?}"),
            None => (Vec::new(), Vec::new()),
        }
    }

    #[test]
    fn a_seek_added_and_gone_unseen_is_never_sent() {
        let mut batch = Batch::default();
        batch.add(seek("a"), 7, None);
        batch.add(seek("b"), 7, None);
        batch.remove("a", SeekGone::Taken, 7, false);
        assert_eq!(parts(&mut batch), (vec!["b".into()], vec![]));
        assert!(batch.flush().is_none(), "a flush empties the batch");
    }

    #[test]
    fn a_seek_someone_may_know_of_is_sent_gone() {
        let mut batch = Batch::default();
        batch.add(seek("handed-out"), 7, None);
        batch.remove("handed-out", SeekGone::Cancelled, 8, false);
        batch.add(seek("held"), 8, None);
        batch.remove("held", SeekGone::Taken, 8, true);
        // Listed before this batch: only its going.
        batch.remove("old", SeekGone::Withdrawn, 8, false);
        let gone = ["handed-out", "held", "old"].map(String::from).to_vec();
        assert_eq!(parts(&mut batch), (vec![], gone));
    }

    #[test]
    fn games_alone_make_a_frame_and_posts_are_timed() {
        let mut batch = Batch::default();
        batch.games(Vec::new());
        assert!(batch.flush().is_some());
        batch.add(seek("a"), 0, Some(Instant::now()));
        batch.add(seek("b"), 0, None);
        assert_eq!(batch.flush().map(|f| f.received.len()), Some(1));
    }
}

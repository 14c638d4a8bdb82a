//! The live list of open seeks this instance keeps: what a new socket starts from, the pages
//! after it, and each seek listed or taken off once however often it is heard of, noted in the
//! batch that the next flush sends.

use std::sync::MutexGuard;

use tokio::time::Instant;

use super::batch::Flushed;
use super::{List, Listing, Lobby, PAGE};
use crate::players::shown;
use crate::protocol::{LobbyFrame, Seek, SeekGone, SeekPage, UnixMs};
use crate::store::SeekRow;

impl Lobby {
    pub(super) fn list(&self) -> MutexGuard<'_, List> {
        self.inner.list.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new lobby socket's start: the newest page of seeks, the games, and the changes after.
    pub fn join_list(&self) -> Listing {
        let mut list = self.list();
        let changes = list.frames.subscribe();
        let first = LobbyFrame::Lobby {
            page: list.page(None),
            games: list.games.clone(),
        };
        Listing { first, changes }
    }

    /// The page of seeks older than the one posted at `at` with id `room`.
    pub fn page_before(&self, at: UnixMs, room: String) -> SeekPage {
        self.list().page(Some((at, room)))
    }

    pub(super) fn open_of(&self, owner: &str) -> usize {
        let list = self.list();
        list.open
            .values()
            .filter(|listed| listed.row.owner == owner)
            .count()
    }

    /// Whether a visitor (a browser's id) has a seek listed now.
    pub(super) fn has_open_seek(&self, visitor: &str) -> bool {
        self.list()
            .open
            .values()
            .any(|listed| listed.row.visitor == visitor)
    }

    /// Lists a seek that is open in the store (once, however often we hear of it); `received`
    /// is when its post arrived, if here.
    pub(super) async fn opened(&self, seek: SeekRow, received: Option<Instant>) {
        let shown = self.public(&seek).await;
        let mut list = self.list();
        if list.at.contains_key(&seek.room) {
            return;
        }
        let handed_out = list.handed_out;
        list.batch.add(shown.clone(), handed_out, received);
        list.at.insert(seek.room.clone(), seek.created_at);
        let key = (seek.created_at, seek.room.clone());
        list.open.insert(key, Listed { row: seek, shown });
    }

    /// Takes a seek off the list (once, however often we hear of it): whether it was listed.
    pub(super) fn gone(&self, room: &str, why: SeekGone) -> bool {
        let held = self.held().contains_key(room);
        let mut list = self.list();
        let Some(at) = list.at.remove(room) else {
            return false;
        };
        list.open.remove(&(at, room.to_string()));
        let handed_out = list.handed_out;
        list.batch.remove(room, why, handed_out, held);
        drop(list);
        if why == SeekGone::Taken {
            self.inner.games_changed.notify_one();
        }
        true
    }

    /// A seek as anyone may see it (no owner, no visitor), with its poster as a player; one
    /// whose player cannot be read is listed without (logged).
    async fn public(&self, seek: &SeekRow) -> Seek {
        let player = match &seek.poster.player {
            None => None,
            Some(id) => match self.inner.players.player(id).await {
                Ok(row) => row.as_ref().map(shown::player_ref),
                Err(error) => {
                    tracing::warn!(room = %seek.room, %error, "a seek's player could not be read");
                    None
                }
            },
        };
        Seek {
            room: seek.room.clone(),
            side: seek.side,
            clock: seek.clock,
            at: seek.created_at,
            rated: seek.poster.rated,
            range: seek.poster.range,
            player,
        }
    }

    /// Takes a seek off the list that went without being taken (as far as we know): the store
    /// deleted its room with it unless someone joined by id first, and a task holding that room
    /// here must end, or it would still seat a late joiner's socket.
    pub(super) async fn withdrawn(&self, room: &str, why: SeekGone) {
        if self.gone(room, why)
            && let Err(error) = self.inner.rooms.close_if_deleted(room).await
        {
            tracing::warn!(%room, %error, "could not end a withdrawn seek's room");
        }
    }
}

impl List {
    /// Sends what changed since the last flush, if anything, as one frame.
    pub(super) fn flush(&mut self) {
        let Some(Flushed { frame, received }) = self.batch.flush() else {
            return;
        };
        // No lobby socket open is fine.
        let _ = self.frames.send(frame.to_json().into());
        for at in received {
            metrics::histogram!(crate::telemetry::SEEK_SHOWN_LATENCY)
                .record(at.elapsed().as_secs_f64());
        }
    }

    /// Up to [`PAGE`] seeks, newest first, older than `before` if given; the list counts as
    /// handed out.
    fn page(&mut self, before: Option<(UnixMs, String)>) -> SeekPage {
        self.handed_out += 1;
        let older = match before {
            Some(key) => self.open.range(..key),
            None => self.open.range(..),
        };
        let mut seeks: Vec<Seek> = older
            .rev()
            .take(PAGE + 1)
            .map(|(_, listed)| listed.shown.clone())
            .collect();
        let more = seeks.len() > PAGE;
        seeks.truncate(PAGE);
        SeekPage { seeks, more }
    }
}

/// An open seek as stored, and as shown.
pub(super) struct Listed {
    pub row: SeekRow,
    pub shown: Seek,
}

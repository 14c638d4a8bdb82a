//! Who follows a tournament on this instance hears here that its log changed, or that its games'
//! rooms were made (issue 45: the tournament page's socket). With one instance (SQLite) an
//! append says so here after its commit ([`TournamentNews::changed`]); on PostgreSQL every append
//! sends `NOTIFY` in its transaction instead (and a director that made rooms, on its own), which
//! every instance, the appending one too, hears as [`super::News::Tournament`] and passes on
//! here, so a page follows a tournament directed by another instance as well. Nothing else (an
//! operator's `senet admin cancel-tournament` on SQLite, another process) is heard: the page
//! shows it at the next change. Like a room's notification it is only a
//! hint: a follower reads the log after the version it has, so a duplicate costs a read and a
//! news lost after a lag is made good by [`TournamentNews::resync`] (everyone reads again).

use tokio::sync::broadcast;

/// News kept per follower before it counts as behind (then it reads again anyway).
const BUFFER: usize = 256;

/// The tournaments whose logs changed: `Some(id)`, or `None` for "any may have".
#[derive(Clone)]
pub struct TournamentNews(broadcast::Sender<Option<String>>);

impl Default for TournamentNews {
    fn default() -> Self {
        TournamentNews(broadcast::channel(BUFFER).0)
    }
}

impl TournamentNews {
    /// The log of tournament `id` changed.
    pub fn changed(&self, id: &str) {
        // Nobody following is fine: nobody to tell.
        let _ = self.0.send(Some(id.to_owned()));
    }

    /// News may have been missed: every follower reads its tournament's log again.
    pub fn resync(&self) {
        let _ = self.0.send(None);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Option<String>> {
        self.0.subscribe()
    }
}

//! `GET /api/counts`: how busy this server is now, for the home page ("12 online · 3 rooms in
//! use"). Both figures are counts the server keeps anyway, read in O(1): no database, no scan.
//!
//! - `online`: the open WebSockets admitted by the [`super::limits::Gate`]: one per page in a
//!   room (players and spectators) or in the lobby (`/play`). A person with two such tabs counts
//!   twice; a page that holds no socket (home, lessons) not at all.
//! - `rooms`: the rooms held in memory ([`crate::room::Rooms::live_count`]): rooms somebody is
//!   in, or was in within the rooms' idle time (30 s by default). That is every game being
//!   played here, and also rooms waiting for their second player and games just over whose
//!   pages are still open: it is not a count of games in progress, and the page does not call
//!   it one.
//! - `scope`: `"server"` alone (SQLite); with several instances on one PostgreSQL each answers
//!   for itself, `"instance"`, and the page says "on this server". A room may then be held by
//!   two instances at once, so the figures of instances do not add up to the cluster's.
//!
//! One reading serves every request for [`FRESH_FOR`], so the figures change at most that often
//! however many pages ask.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use serde::Serialize;

use super::AppState;

/// How long one reading is answered.
pub const FRESH_FOR: Duration = Duration::from_secs(2);

/// What the figures count: this whole server, or one instance of several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Server,
    Instance,
}

/// The answer of `GET /api/counts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub online: usize,
    pub rooms: usize,
    pub scope: Scope,
}

/// The last reading and when it was taken.
#[derive(Debug, Default)]
pub struct LastCounts(Mutex<Option<(Instant, Counts)>>);

impl LastCounts {
    /// The reading of at most [`FRESH_FOR`] ago, or `read()` now.
    fn get_or(&self, now: Instant, read: impl FnOnce() -> Counts) -> Counts {
        let mut last = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match *last {
            Some((at, counts)) if now.duration_since(at) < FRESH_FOR => counts,
            _ => {
                let counts = read();
                *last = Some((now, counts));
                counts
            }
        }
    }
}

/// `GET /api/counts`.
pub async fn counts(State(state): State<AppState>) -> Json<Counts> {
    Json(state.counts.get_or(Instant::now(), || Counts {
        online: state.gate.open_connections(),
        rooms: state.rooms.live_count(),
        scope: match state.rooms.store().instance() {
            Some(_) => Scope::Instance,
            None => Scope::Server,
        },
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(online: usize) -> Counts {
        Counts {
            online,
            rooms: 0,
            scope: Scope::Server,
        }
    }

    #[test]
    fn one_reading_serves_until_it_is_stale() {
        let last = LastCounts::default();
        let start = Instant::now();
        assert_eq!(last.get_or(start, || counts(1)).online, 1);
        assert_eq!(last.get_or(start + FRESH_FOR / 2, || counts(2)).online, 1);
        assert_eq!(last.get_or(start + FRESH_FOR, || counts(3)).online, 3);
    }
}

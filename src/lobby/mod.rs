//! The lobby: open games any visitor may take (seeks), quick pairing, and the games started
//! from them, as a live list for `/ws/lobby` sockets. It sits beside the rooms and uses them:
//! a seek *is* a room made as `POST /api/rooms` makes an online one, plus a row in the store's
//! `seeks` table that lists it; taking a seek is joining its room.
//!
//! Who wins a seek: the store's `take_seek` marks the row taken in one statement, so of several
//! takers at once (on any instance) exactly one gets it and the others hear `seek_taken`;
//! cancelling and withdrawing delete the row only while it is open, so they race the same way,
//! and take the seek's room with them (unless someone joined it by id and started the game): a
//! late joiner finds no room, and a task holding it here ends (`Rooms::close_if_deleted`), or it
//! would still seat a socket.
//! Quick pairing asks the store for the oldest compatible open seek under a lock that serializes
//! pairings; whoever finds none posts a seek and asks again, so two visitors who ask at once end
//! up in one game instead of both waiting (see `store::seeks`).
//!
//! Pairing by strength (issue 29): compatible means the same time control, the same rated
//! choice (rated only with rated, which needs a player), never one's own seek (by visitor or
//! by player), never a seek of a player who blocked the asker or whom the asker blocked
//! (issue 46), the asker's rating inside the seek's range if it set one and the seek's rating
//! inside the asker's range if they set one, and the two ratings within a window that widens
//! while the seek waits — ±100 at first, 50 more every 5 s, any rating after 30 s
//! ([`LobbyConfig::window`], `store::Window`); of those, the nearest rating first, then the
//! oldest. Anonymous seeks and askers have no rating: the window does not apply to them, and
//! a range excludes them.
//!
//! The live list: every instance keeps all open seeks in memory (their number is capped). A
//! change made here is applied at once, and the post, take or cancel that made it is answered
//! without waiting for anyone to hear of it: the change is noted in a [`batch::Batch`], and
//! every [`FLUSH_EVERY`] the batch goes to all lobby sockets as one frame serialized once (a
//! seek posted and taken within one interval is never sent). On PostgreSQL every change also
//! comes back (and reaches the other instances) as a notification on the store's channel, which
//! is applied only if it changes the list, so each change is sent once. After the listener may
//! have missed some (`Resync`), the list is read again and the difference sent.
//!
//! A seek lives while its creator's page does: the page's lobby socket `hold`s it, and each
//! instance renews the seeks its sockets hold every [`TICK`]; one not renewed for `grace` (the
//! page closed, or never held it) is withdrawn by whichever instance sweeps first. The games in
//! progress are the taken seeks whose game has not ended, read again every [`GAMES_EVERY`] (within
//! [`GAMES_SOON`] when a seek is taken) and sent as a whole, with the next batch, when they
//! changed.
//!
//! Here: the lobby's types and its start. Beside them: `seeks.rs` (post, take, cancel, pair,
//! hold), `list.rs` (the live list and its pages), `batch.rs` (the changes between flushes),
//! `upkeep.rs` (news, renewal and sweep, the games read again, the flush).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

use crate::players::store::PlayerStore;
use crate::protocol::{FrameText, LobbyFrame, LobbyGame, UnixMs};
use crate::room::{RoomError, Rooms};
use crate::store::{Store, StoreError, Subscription, Window};

mod batch;
pub mod challenges;
mod list;
mod seeks;
mod upkeep;

pub use crate::store::Poster;
use batch::Batch;

/// How often the lobby's changes are sent: a page hears of a seek within this (plus the
/// network), and each socket gets at most this many frames a second. Measured in
/// docs/PERFORMANCE.md ("The lobby under load").
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// How often held seeks are renewed and unrenewed ones withdrawn.
pub const TICK: Duration = Duration::from_secs(1);
/// How often the games in progress are read again.
pub const GAMES_EVERY: Duration = Duration::from_secs(3);
/// How soon after the last reading a taken seek has them read again.
pub const GAMES_SOON: Duration = Duration::from_millis(500);
/// Open seeks in all, over every instance: each instance keeps them all in memory.
pub const MAX_OPEN_SEEKS: u32 = 10_000;
/// Seeks in one page of the list.
pub const PAGE: usize = 50;
/// Games in progress listed (the most recently started).
pub const GAMES: u32 = 50;
/// Frames a lobby socket may fall behind (4 s of flushes) before it gets the whole list again:
/// a slow socket costs one fresh list, not a queue of every change it missed.
const FRAME_BUFFER: usize = 16;
/// Longest visitor id accepted, in characters.
const MAX_VISITOR: usize = 64;

/// Open seeks one client address may hold at once by default.
pub const DEFAULT_MAX_SEEKS_PER_ADDRESS: u32 = 3;
/// How long a seek stays listed by default after its creator's lobby page is gone.
pub const DEFAULT_SEEK_GRACE: Duration = Duration::from_secs(5);

/// How the lobby behaves; fixed at start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobbyConfig {
    /// Open seeks one client address may hold (0: no cap).
    pub max_seeks_per_address: u32,
    /// How long a seek stays listed without its creator's lobby socket.
    pub grace: Duration,
    /// Quick pairing's rating window and how it widens (see [`Window`]'s default).
    pub window: Window,
}

impl Default for LobbyConfig {
    fn default() -> Self {
        LobbyConfig {
            max_seeks_per_address: DEFAULT_MAX_SEEKS_PER_ADDRESS,
            grace: DEFAULT_SEEK_GRACE,
            window: Window::default(),
        }
    }
}

/// What the lobby refuses or fails with; worded for the wire in `server::error`.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// The seek is not open any more (taken, cancelled, withdrawn) or never was.
    #[error("this seek is no longer open")]
    SeekTaken,
    /// The address's cap, or the lobby's, is reached.
    #[error("too many open seeks")]
    TooManySeeks,
    /// The visitor (a browser) already has an open seek: a second one would be a game its
    /// poster never sees, since the page follows one seek at a time.
    #[error("this browser already has an open seek")]
    SeekOpen,
    /// The token is not the seat token of the seek's creator.
    #[error("this token does not hold a seat of the seek's room")]
    NotYours,
    /// A rating range whose ends are out of order.
    #[error("range must be [min, max] with min <= max")]
    BadRange,
    #[error("visitor must be 1 to {MAX_VISITOR} characters without control characters")]
    BadVisitor,
    #[error(transparent)]
    Room(#[from] RoomError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The lobby of this instance; cloned into every handler.
#[derive(Clone)]
pub struct Lobby {
    inner: Arc<Inner>,
}

struct Inner {
    rooms: Rooms,
    /// Who sits in the games in progress, by identity.
    players: Arc<dyn PlayerStore>,
    config: LobbyConfig,
    /// The open seeks, the changes not yet sent and the frames that tell of them: one lock,
    /// so a socket's snapshot and its subscription to the changes after it are taken together.
    list: Mutex<List>,
    /// Open seeks held by this instance's lobby sockets, with how many sockets hold each.
    held: Mutex<HashMap<String, usize>>,
    /// Wakes the games' reader when a seek was taken.
    games_changed: Notify,
}

struct List {
    /// Open seeks by (posted at, room): the order of the pages, newest last.
    open: BTreeMap<(UnixMs, String), list::Listed>,
    /// When each open seek was posted, to find it by room.
    at: HashMap<String, UnixMs>,
    games: Vec<LobbyGame>,
    /// The changes since the last flush.
    batch: Batch,
    /// How many times the list was handed out (a new socket's first page, a `more` page, a
    /// lagging socket's fresh list): the batch needs it to know whether anyone may have seen a
    /// seek.
    handed_out: u64,
    frames: broadcast::Sender<FrameText>,
}

/// What a new lobby socket starts from: the first page and games, and every change after.
pub struct Listing {
    pub first: LobbyFrame,
    pub changes: broadcast::Receiver<FrameText>,
}

/// A seek a lobby socket holds; dropping it lets the seek go (it is withdrawn after the grace
/// unless another socket holds it).
pub struct Hold {
    lobby: Lobby,
    room: String,
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut held = self.lobby.held();
        if let Some(count) = held.get_mut(&self.room) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.room);
            }
        }
    }
}

impl Lobby {
    /// The lobby over `rooms`, with the open seeks read from the store, renewing and sweeping
    /// until `shutdown`, and hearing other instances through `news`.
    pub async fn start(
        rooms: Rooms,
        players: Arc<dyn PlayerStore>,
        config: LobbyConfig,
        news: Subscription,
        shutdown: CancellationToken,
    ) -> Result<Lobby, LobbyError> {
        let (frames, _) = broadcast::channel(FRAME_BUFFER);
        let lobby = Lobby {
            inner: Arc::new(Inner {
                rooms,
                players,
                config,
                list: Mutex::new(List {
                    open: BTreeMap::new(),
                    at: HashMap::new(),
                    games: Vec::new(),
                    batch: Batch::default(),
                    handed_out: 0,
                    frames,
                }),
                held: Mutex::new(HashMap::new()),
                games_changed: Notify::new(),
            }),
        };
        lobby.reload().await?;
        tokio::spawn(lobby.clone().follow(news));
        tokio::spawn(lobby.clone().flush(shutdown.clone()));
        tokio::spawn(lobby.clone().keep(shutdown));
        Ok(lobby)
    }

    fn store(&self) -> &Store {
        self.inner.rooms.store()
    }

    fn held(&self) -> MutexGuard<'_, HashMap<String, usize>> {
        self.inner.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn grace_ms(&self) -> UnixMs {
        self.inner.config.grace.as_millis() as UnixMs
    }
}

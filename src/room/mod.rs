//! Rooms: the registry of live rooms ([`Rooms`]), one task per live room
//! ([`task`]), the pure game state machine it owns ([`game`]) and the
//! computer's seat in `ai` rooms ([`bot`]).
//!
//! A room is live while a task holds it in memory. The first use of a room
//! (a join, a connection) loads it from the store's log and spawns its task;
//! a task that has been idle ends and frees its memory. A summary is read from
//! its row ([`summary`]) and a record from the log, without loading the room.
//! Every caller talks to a room only through its task's command channel.
//!
//! The registry holds at most `max_in_memory` rooms: before it loads one more,
//! it lets the least recently used idle rooms go (no connection, no running
//! clock: what `idle_after` would end anyway, sooner). Rooms in use are never
//! let go, so only they can hold the count above the cap, and each of them is
//! bounded elsewhere (connections by the edge's caps, running clocks by the
//! games' time controls). Choosing the room scans the registry, once per room
//! loaded while it is full.
//!
//! Here: the registry's types. Beside them: `registry.rs` (finding, loading and letting go of
//! rooms, their commands, news from other instances), `create.rs` (new rooms), `load.rs` (a
//! room folded from its log, its summary and record), `operator.rs` (a game the operator
//! ends), `analyses.rs`, `upkeep.rs` (clocks resumed after a restart, unstarted rooms swept),
//! `watchers.rs` (spectators between instances).

pub mod bot;
pub mod bounds;
pub mod config;
pub mod error;
pub mod game;
pub mod rate;
pub mod ring;
pub mod seats;
pub mod task;
pub mod watchers;

mod analyses;
mod create;
mod load;
mod operator;
mod registry;
mod summary;
mod upkeep;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use bot::BotConfig;
pub use config::*;
pub use create::{MAX_CLOCK_INCREMENT, MAX_CLOCK_INITIAL, NewRoom};
pub use error::{Refusal, ReplayError, RoomError};
pub use game::{Context, Decision, Game, Readers, Room, Speaker};
pub use operator::end_by_operator;
pub use rate::{RateLimit, SeatBudget};
pub use seats::{Seats, Sitter};
pub use task::{Attached, ChatAnswer, ChatCommand, Command, ConnId, Frame};
pub use watchers::Watchers;

use crate::protocol::UnixMs;
use crate::store::Store;
use analyses::Flights;
use create::{create_room, new_room_rows, new_seat};
use load::{decode, replay, stored_event};

/// A way to send commands to one live room.
#[derive(Clone)]
pub struct RoomHandle {
    commands: mpsc::Sender<Command>,
    /// What the registry knows of the room's use, to choose the room to let go.
    usage: Arc<Usage>,
}

/// How a live room is used, for the registry's cap.
#[derive(Default)]
struct Usage {
    /// The registry's tick at the room's last use: the smallest is the least recently used.
    last_used: AtomicU64,
    /// Set by the room's task: whether it holds nothing a let-go would lose (see
    /// [`task::RoomTask::run`]).
    idle: Arc<AtomicBool>,
}

/// The registry of live rooms, shared by every request handler.
#[derive(Clone)]
pub struct Rooms {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    config: RoomConfig,
    live: Mutex<HashMap<String, RoomHandle>>,
    /// Spectators here and on the other instances.
    watchers: Watchers,
    /// Counts room uses, for [`Usage::last_used`].
    ticks: AtomicU64,
    /// One lock per room whose analysis is being computed: concurrent first requests wait for
    /// the first one's, then read it from the store (single flight). An entry lives while its
    /// analysis runs.
    analysing: Flights,
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

/// A caller retries a room whose task ended under it this many times.
const MAX_RELOADS: usize = 3;

/// The wall clock as unix milliseconds.
pub fn now_ms() -> UnixMs {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    since_epoch.as_millis() as UnixMs
}

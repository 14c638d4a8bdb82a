//! How rooms behave ([`RoomConfig`], fixed at start) and the default of each setting, written
//! once: `senet serve`'s flags (`server::config`) take their defaults from these constants, and
//! [`RoomConfig::default`] is built from them too.

use std::time::Duration;

use super::bot::{BotConfig, default_max_concurrent};

/// Seconds the side to move may be away before the opponent may claim the win.
pub const DEFAULT_ABANDON_AFTER: Duration = Duration::from_secs(60);
/// Seconds the side to move of an untimed online game may take over its turn.
pub const DEFAULT_IDLE_TURN_AFTER: Duration = Duration::from_secs(300);
/// The shortest initial time, in seconds, of a timed game.
pub const DEFAULT_MIN_CLOCK_INITIAL: u32 = 30;
/// How long a room may wait for its second player before it is deleted: a day.
pub const DEFAULT_UNSTARTED_TTL: Duration = Duration::from_secs(24 * 3600);
/// How often the store is asked for correspondence games whose side to move ran out of days.
pub const DEFAULT_DUE_TURN_CHECK: Duration = Duration::from_secs(60);
/// How long a room with no connection stays in memory.
pub const DEFAULT_IDLE_AFTER: Duration = Duration::from_secs(30);
/// Rooms held in memory by default: an idle room costs about 15 KiB (docs/PERFORMANCE.md, "Rooms
/// in memory": 5,000 took the RSS from 22 to 93 MiB), so these take some 71 MiB at most.
pub const DEFAULT_MAX_IN_MEMORY: usize = 5_000;
/// Frames a connection may fall behind before it gets a fresh `state`.
pub const DEFAULT_BROADCAST_CAPACITY: u16 = 64;
/// Commands queued for one room before callers wait (not a flag).
pub const DEFAULT_COMMAND_CAPACITY: usize = 64;
/// How often presence on other instances, and the spectator counts' instances, are checked.
pub const DEFAULT_PRESENCE_CHECK: Duration = Duration::from_secs(10);
/// Messages one socket, and all the sockets of one seat together, may send in any second.
pub const DEFAULT_MESSAGES_PER_SECOND: usize = 20;
/// Sockets one seat may hold at once.
pub const DEFAULT_MAX_SOCKETS_PER_SEAT: u16 = 4;
/// Milliseconds the computer waits before each throw and move, so a person can follow.
pub const DEFAULT_AI_DELAY_MS: u64 = 700;

/// How rooms behave; fixed at start.
#[derive(Clone, Debug)]
pub struct RoomConfig {
    /// How long the side to move may be away before the other may claim.
    pub abandon_after: Duration,
    /// How long the side to move of an untimed online game may take over its turn, connected
    /// or not, before the other may claim.
    pub idle_turn_after: Duration,
    /// How long a room with no connection stays in memory.
    pub idle_after: Duration,
    /// Frames a connection may fall behind before it gets a fresh `state`.
    pub broadcast_capacity: usize,
    /// Commands queued for one room before callers wait.
    pub command_capacity: usize,
    /// The computer's pace and the bound on searches running at once.
    pub bots: BotConfig,
    /// How often a room whose log says a player is connected to another
    /// instance checks that the instance still holds the connection, and how often the
    /// instances whose spectators are counted here are checked ([`super::watchers`]).
    pub presence_check: Duration,
    /// The shortest initial time of a timed game, in seconds.
    pub min_clock_initial: u32,
    /// Sockets one seat may hold; a new one past this closes the seat's oldest.
    pub max_sockets_per_seat: usize,
    /// Messages all the sockets of one seat may send in any second, together.
    pub seat_messages_per_second: usize,
    /// How long a room may wait for its game to start before it is deleted.
    pub unstarted_ttl: Duration,
    /// How long a one-screen or computer game with no named player is kept after its last
    /// event (`None`: for ever).
    pub forget_local_after: Option<Duration>,
    /// Rooms held in memory before the least recently used idle one is let go.
    pub max_in_memory: usize,
    /// How often the correspondence games whose time ran out are looked for in the store (they
    /// are not held in memory while idle): a timeout is logged at most this late.
    pub due_turn_check: Duration,
    /// Where a correspondence game's turn passing to a player is told, for Web Push
    /// (`players::push`); nowhere by default.
    pub notices: crate::players::push::Notices,
}

impl Default for RoomConfig {
    fn default() -> Self {
        RoomConfig {
            abandon_after: DEFAULT_ABANDON_AFTER,
            idle_turn_after: DEFAULT_IDLE_TURN_AFTER,
            idle_after: DEFAULT_IDLE_AFTER,
            broadcast_capacity: usize::from(DEFAULT_BROADCAST_CAPACITY),
            command_capacity: DEFAULT_COMMAND_CAPACITY,
            bots: BotConfig::new(
                Duration::from_millis(DEFAULT_AI_DELAY_MS),
                usize::from(default_max_concurrent()),
            ),
            presence_check: DEFAULT_PRESENCE_CHECK,
            min_clock_initial: DEFAULT_MIN_CLOCK_INITIAL,
            max_sockets_per_seat: usize::from(DEFAULT_MAX_SOCKETS_PER_SEAT),
            seat_messages_per_second: DEFAULT_MESSAGES_PER_SECOND,
            unstarted_ttl: DEFAULT_UNSTARTED_TTL,
            forget_local_after: None,
            max_in_memory: DEFAULT_MAX_IN_MEMORY,
            due_turn_check: DEFAULT_DUE_TURN_CHECK,
            notices: crate::players::push::Notices::default(),
        }
    }
}

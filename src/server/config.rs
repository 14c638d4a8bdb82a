//! `senet serve` settings: each is a flag with an environment variable and a default that works
//! on a laptop. Each default is written once, as a `DEFAULT_*` constant of the layer that uses the
//! setting (`room::config`, `lobby`, `server::limits`, `server::edge::settings`, or here for the
//! server's own); the flags, [`Config::default`], `RoomConfig::default` and
//! `LobbyConfig::default` all take them from there (`tests/layout.rs` checks that a bare
//! `senet serve` parses to [`Config::default`]).

use std::time::Duration;

use super::edge::EdgeSettings;
use super::flags::{parse_positive_count, parse_positive_seconds, parse_seconds, seconds};
use super::limits::ConnectionSettings;
use crate::class::DEFAULT_RETENTION;
use crate::lobby::challenges::{ChallengeConfig, DEFAULT_LIVE_EXPIRY};
use crate::lobby::{DEFAULT_MAX_SEEKS_PER_ADDRESS, DEFAULT_SEEK_GRACE, LobbyConfig};
use crate::players::push::{DEFAULT_PER_MINUTE, PushConfig};
use crate::room::bot::default_max_concurrent;
use crate::room::{
    BotConfig, DEFAULT_ABANDON_AFTER, DEFAULT_AI_DELAY_MS, DEFAULT_BROADCAST_CAPACITY,
    DEFAULT_DUE_TURN_CHECK, DEFAULT_IDLE_AFTER, DEFAULT_IDLE_TURN_AFTER, DEFAULT_MAX_IN_MEMORY,
    DEFAULT_MAX_SOCKETS_PER_SEAT, DEFAULT_MESSAGES_PER_SECOND, DEFAULT_MIN_CLOCK_INITIAL,
    DEFAULT_PRESENCE_CHECK, DEFAULT_UNSTARTED_TTL, RoomConfig,
};
use crate::telemetry::LogFormat;

/// Seconds a kiosk waits without a touch before "still playing?" (issue 50 item 4).
pub const DEFAULT_KIOSK_IDLE: u32 = 90;
/// Where the server listens by default.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// The database by default: a SQLite file beside the process.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://senet.db";
/// Seconds between pings on each WebSocket.
pub const DEFAULT_PING_INTERVAL: Duration = Duration::from_secs(15);
/// Where `/metrics` is served by default: loopback only, never the public listener. Not 9100
/// (node_exporter's, on most monitored hosts) nor any port of the Prometheus wiki's "Default
/// port allocations" (9090–9093, 9100–9999: full since 2023); 8808 is not in `/etc/services`
/// either.
pub const DEFAULT_METRICS_LISTEN: &str = "127.0.0.1:8808";
/// How long a kiosk (`--kiosk`) keeps its games when `--forget-local-games-after` is not given.
pub const KIOSK_FORGETS_AFTER: Duration = Duration::from_secs(30 * 24 * 3600);
/// How long shutdown waits for connections and rooms, below a container's 10 s stop timeout.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(8);

#[derive(Clone, Debug, PartialEq, clap::Args)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port (the printed URL shows it).
    #[arg(long, env = "SENET_LISTEN", default_value = DEFAULT_LISTEN)]
    pub listen: String,

    /// Database: a SQLite file, created on first start.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,

    /// Seconds the side to move may be away before the opponent may claim the win.
    #[arg(long, env = "SENET_ABANDON_AFTER", default_value = seconds(DEFAULT_ABANDON_AFTER), value_parser = parse_seconds)]
    pub abandon_after: Duration,

    /// Seconds the side to move of an untimed online game may take over its turn, connected or
    /// not, before the opponent may claim the win.
    #[arg(long, env = "SENET_IDLE_TURN_AFTER", default_value = seconds(DEFAULT_IDLE_TURN_AFTER), value_parser = parse_seconds)]
    pub idle_turn_after: Duration,

    /// The shortest initial time, in seconds, a timed game may be created with (the longest is
    /// two hours).
    #[arg(long, env = "SENET_MIN_CLOCK_INITIAL", default_value_t = DEFAULT_MIN_CLOCK_INITIAL, value_parser = clap::value_parser!(u32).range(1..=7200))]
    pub min_clock_initial: u32,

    /// Seconds a room may wait for its game to start (the second player) before it is deleted.
    /// Finished and running games are kept.
    #[arg(long, env = "SENET_UNSTARTED_ROOM_TTL", default_value = seconds(DEFAULT_UNSTARTED_TTL), value_parser = parse_positive_seconds)]
    pub unstarted_room_ttl: Duration,

    /// Seconds a one-screen or computer game with no named player is kept after its last move,
    /// then deleted (a kiosk's games: nobody comes back to them). Unset: kept for ever, or 30
    /// days under `--kiosk`.
    #[arg(long, env = "SENET_FORGET_LOCAL_GAMES_AFTER", value_parser = parse_positive_seconds)]
    pub forget_local_games_after: Option<Duration>,

    /// Seconds a room with no connection stays in memory before its task ends.
    #[arg(long, env = "SENET_ROOM_IDLE_AFTER", default_value = seconds(DEFAULT_IDLE_AFTER), value_parser = parse_seconds)]
    pub room_idle_after: Duration,

    /// Seconds between looks in the database for correspondence games whose side to move ran
    /// out of days (those rooms are not kept in memory): a timeout is logged at most this late.
    #[arg(long, env = "SENET_DUE_TURN_CHECK", default_value = seconds(DEFAULT_DUE_TURN_CHECK), value_parser = parse_positive_seconds)]
    pub due_turn_check: Duration,

    /// Rooms held in memory: past it, loading another lets the least recently used idle room
    /// (no connection, no running clock) go. Rooms in use are never let go.
    #[arg(long, env = "SENET_MAX_ROOMS_IN_MEMORY", default_value_t = DEFAULT_MAX_IN_MEMORY, value_parser = parse_positive_count)]
    pub max_rooms_in_memory: usize,

    /// Events a connection may fall behind before it gets a fresh state instead of them.
    #[arg(long, env = "SENET_BROADCAST_CAPACITY", default_value_t = DEFAULT_BROADCAST_CAPACITY, value_parser = clap::value_parser!(u16).range(1..))]
    pub broadcast_capacity: u16,

    /// Seconds between pings on each WebSocket; a peer silent for three is dropped.
    #[arg(long, env = "SENET_PING_INTERVAL", default_value = seconds(DEFAULT_PING_INTERVAL), value_parser = parse_positive_seconds)]
    pub ping_interval: Duration,

    /// Seconds between checks that a player the log shows connected to another
    /// instance (PostgreSQL) still is, so one whose instance died is seen to be gone; also
    /// between checks that the instances whose spectators are counted still live.
    #[arg(long, env = "SENET_PRESENCE_CHECK", default_value = seconds(DEFAULT_PRESENCE_CHECK), value_parser = parse_positive_seconds)]
    pub presence_check: Duration,

    /// Messages one WebSocket may send in any second, pings included; more close it (1008).
    /// All the sockets of one seat share the same budget.
    #[arg(long, env = "SENET_MAX_MESSAGES_PER_SECOND", default_value_t = DEFAULT_MESSAGES_PER_SECOND)]
    pub max_messages_per_second: usize,

    /// Sockets one seat may hold at once; a new one past this closes the oldest (4000).
    #[arg(long, env = "SENET_MAX_SOCKETS_PER_SEAT", default_value_t = DEFAULT_MAX_SOCKETS_PER_SEAT, value_parser = clap::value_parser!(u16).range(1..))]
    pub max_sockets_per_seat: u16,

    /// Open seeks (lobby listings) one client address may hold at once; past it, 429. 0: no cap.
    #[arg(long, env = "SENET_MAX_SEEKS_PER_ADDRESS", default_value_t = DEFAULT_MAX_SEEKS_PER_ADDRESS)]
    pub max_seeks_per_address: u32,

    /// Seconds a seek stays listed after its creator's lobby page is gone (or if it never
    /// opened one): a reload keeps it, a closed tab withdraws it.
    #[arg(long, env = "SENET_SEEK_GRACE", default_value = seconds(DEFAULT_SEEK_GRACE), value_parser = parse_positive_seconds)]
    pub seek_grace: Duration,

    /// Seconds a live challenge waits for its answer (a correspondence one waits 7 days).
    #[arg(long, env = "SENET_CHALLENGE_EXPIRY", default_value = seconds(DEFAULT_LIVE_EXPIRY), value_parser = parse_positive_seconds)]
    pub challenge_expiry: Duration,

    /// Milliseconds the computer waits before each throw and move, so a person can follow.
    #[arg(long, env = "SENET_AI_DELAY_MS", default_value_t = DEFAULT_AI_DELAY_MS)]
    pub ai_delay_ms: u64,

    /// AI searches running at once over all rooms (default: the number of CPUs).
    #[arg(long, env = "SENET_AI_MAX_CONCURRENT", default_value_t = default_max_concurrent(), value_parser = clap::value_parser!(u16).range(1..))]
    pub ai_max_concurrent: u16,

    /// Address `/metrics` is served on (and only there: the public listener never serves it).
    /// Port 0 picks a free port (the printed URL shows it).
    #[arg(long, env = "SENET_METRICS_LISTEN", default_value = DEFAULT_METRICS_LISTEN)]
    pub metrics_listen: String,

    #[command(flatten)]
    pub connections: ConnectionSettings,

    #[command(flatten)]
    pub edge: EdgeSettings,

    #[command(flatten)]
    pub push: PushSettings,

    /// Seconds shutdown (SIGTERM) waits for connections and rooms to close; past it, the
    /// process exits with whatever is left (every event a client saw is committed already).
    /// Keep it below the container's stop timeout (10 s by default), which ends in SIGKILL.
    #[arg(long, env = "SENET_SHUTDOWN_GRACE", default_value = seconds(DEFAULT_SHUTDOWN_GRACE), value_parser = parse_positive_seconds)]
    pub shutdown_grace: Duration,

    /// Log lines as human-readable text or as JSON objects.
    #[arg(long, env = "SENET_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Serve the museum kiosk (`/kiosk`: a full-screen game for a touch table) as the home page
    /// `/`; every other page still answers at its own address (docs/UI.md, "Kiosk").
    #[arg(long, env = "SENET_KIOSK")]
    pub kiosk: bool,

    /// Seconds without a touch before the kiosk asks "still playing?" and then goes back to its
    /// attract screen (the page reads it from `GET /api/kiosk`).
    #[arg(long, env = "SENET_KIOSK_IDLE", default_value_t = DEFAULT_KIOSK_IDLE, value_parser = clap::value_parser!(u32).range(3..=3600))]
    pub kiosk_idle: u32,

    /// Seconds a class and its pupils' names are kept after it opens (the teacher sees the
    /// date); then they are deleted, whatever the teacher does. At most the default, 30 days.
    #[arg(long, env = "SENET_CLASS_RETENTION", default_value = seconds(DEFAULT_RETENTION), value_parser = parse_retention)]
    pub class_retention: Duration,
}

/// `--class-retention`: more than 0 seconds, at most [`DEFAULT_RETENTION`].
fn parse_retention(text: &str) -> Result<Duration, String> {
    match parse_positive_seconds(text)? {
        longer if longer > DEFAULT_RETENTION => Err(format!(
            "must be at most {} seconds (30 days)",
            DEFAULT_RETENTION.as_secs()
        )),
        retention => Ok(retention),
    }
}

impl Default for Config {
    /// `senet serve` with no flags and no environment.
    fn default() -> Self {
        Config {
            listen: DEFAULT_LISTEN.into(),
            database_url: DEFAULT_DATABASE_URL.into(),
            abandon_after: DEFAULT_ABANDON_AFTER,
            idle_turn_after: DEFAULT_IDLE_TURN_AFTER,
            min_clock_initial: DEFAULT_MIN_CLOCK_INITIAL,
            unstarted_room_ttl: DEFAULT_UNSTARTED_TTL,
            forget_local_games_after: None,
            room_idle_after: DEFAULT_IDLE_AFTER,
            due_turn_check: DEFAULT_DUE_TURN_CHECK,
            max_rooms_in_memory: DEFAULT_MAX_IN_MEMORY,
            broadcast_capacity: DEFAULT_BROADCAST_CAPACITY,
            ping_interval: DEFAULT_PING_INTERVAL,
            presence_check: DEFAULT_PRESENCE_CHECK,
            max_messages_per_second: DEFAULT_MESSAGES_PER_SECOND,
            max_sockets_per_seat: DEFAULT_MAX_SOCKETS_PER_SEAT,
            max_seeks_per_address: DEFAULT_MAX_SEEKS_PER_ADDRESS,
            seek_grace: DEFAULT_SEEK_GRACE,
            challenge_expiry: DEFAULT_LIVE_EXPIRY,
            ai_delay_ms: DEFAULT_AI_DELAY_MS,
            ai_max_concurrent: default_max_concurrent(),
            metrics_listen: DEFAULT_METRICS_LISTEN.into(),
            connections: ConnectionSettings::default(),
            edge: EdgeSettings::default(),
            push: PushSettings::default(),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            log_format: LogFormat::Text,
            kiosk: false,
            kiosk_idle: DEFAULT_KIOSK_IDLE,
            class_retention: DEFAULT_RETENTION,
        }
    }
}

impl Config {
    /// The defaults with another database.
    pub fn with_database(database_url: impl Into<String>) -> Config {
        Config {
            database_url: database_url.into(),
            ..Config::default()
        }
    }

    pub fn room_config(&self) -> RoomConfig {
        RoomConfig {
            abandon_after: self.abandon_after,
            idle_turn_after: self.idle_turn_after,
            idle_after: self.room_idle_after,
            broadcast_capacity: usize::from(self.broadcast_capacity),
            // One semaphore for the whole server: this is called once, at bind.
            bots: BotConfig::new(
                Duration::from_millis(self.ai_delay_ms),
                usize::from(self.ai_max_concurrent),
            ),
            presence_check: self.presence_check,
            min_clock_initial: self.min_clock_initial,
            max_sockets_per_seat: usize::from(self.max_sockets_per_seat),
            seat_messages_per_second: self.max_messages_per_second,
            unstarted_ttl: self.unstarted_room_ttl,
            forget_local_after: self
                .forget_local_games_after
                .or(self.kiosk.then_some(KIOSK_FORGETS_AFTER)),
            max_in_memory: self.max_rooms_in_memory,
            due_turn_check: self.due_turn_check,
            ..RoomConfig::default()
        }
    }

    pub fn challenge_config(&self) -> ChallengeConfig {
        ChallengeConfig {
            live: self.challenge_expiry,
            ..ChallengeConfig::default()
        }
    }

    pub fn lobby_config(&self) -> LobbyConfig {
        LobbyConfig {
            max_seeks_per_address: self.max_seeks_per_address,
            grace: self.seek_grace,
            ..LobbyConfig::default()
        }
    }
}

/// Web Push (issue 46; docs/OPERATING.md, "Web Push").
#[derive(clap::Args, Clone, Debug, PartialEq)]
pub struct PushSettings {
    /// The VAPID private key (the P-256 scalar, 32 bytes base64url), to keep the key of another
    /// installation; by default the server makes one at its first start and keeps it in the
    /// database. Changing it voids every device's subscription.
    #[arg(long, env = "SENET_VAPID_PRIVATE_KEY", hide_env_values = true)]
    pub vapid_private_key: Option<String>,

    /// Who runs this server, for the push services (`mailto:` or `https:`).
    #[arg(
        long,
        env = "SENET_VAPID_SUBJECT",
        default_value = "mailto:operator@localhost"
    )]
    pub vapid_subject: String,

    /// Push notifications sent per minute at most, over the whole server; past it they are
    /// dropped (and counted).
    #[arg(long, env = "SENET_PUSH_PER_MINUTE", default_value_t = DEFAULT_PER_MINUTE, value_parser = clap::value_parser!(u32).range(1..))]
    pub push_per_minute: u32,

    /// Accept http (not only https) push endpoints: a local test push service.
    #[arg(long, env = "SENET_PUSH_ALLOW_HTTP")]
    pub push_allow_http: bool,
}

impl Default for PushSettings {
    fn default() -> Self {
        let config = PushConfig::default();
        PushSettings {
            vapid_private_key: None,
            vapid_subject: config.vapid_subject,
            push_per_minute: config.per_minute,
            push_allow_http: false,
        }
    }
}

impl PushSettings {
    pub fn config(&self) -> PushConfig {
        PushConfig {
            vapid_private_key: self.vapid_private_key.clone(),
            vapid_subject: self.vapid_subject.clone(),
            per_minute: self.push_per_minute,
            allow_http: self.push_allow_http,
            ..PushConfig::default()
        }
    }
}

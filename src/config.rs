//! `senet serve` settings: each is a flag with an environment variable and
//! a default that works on a laptop.

use std::time::Duration;

use crate::lobby::LobbyConfig;
use crate::room::bot::default_max_concurrent;
use crate::room::{BotConfig, DEFAULT_MAX_IN_MEMORY, RoomConfig};
use crate::server::edge::TrustedProxies;
use crate::server::limits::ConnectionSettings;
use crate::telemetry::LogFormat;

#[derive(Clone, Debug, clap::Args)]
pub struct Config {
    /// Address to listen on; port 0 picks a free port (the printed URL shows it).
    #[arg(long, env = "SENET_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: String,

    /// Database: a SQLite file, created on first start.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://senet.db")]
    pub database_url: String,

    /// Seconds the side to move may be away before the opponent may claim the win.
    #[arg(long, env = "SENET_ABANDON_AFTER", default_value = "60", value_parser = parse_seconds)]
    pub abandon_after: Duration,

    /// Seconds the side to move of an untimed online game may take over its turn, connected or
    /// not, before the opponent may claim the win.
    #[arg(long, env = "SENET_IDLE_TURN_AFTER", default_value = "300", value_parser = parse_seconds)]
    pub idle_turn_after: Duration,

    /// The shortest initial time, in seconds, a timed game may be created with (the longest is
    /// two hours).
    #[arg(long, env = "SENET_MIN_CLOCK_INITIAL", default_value = "30", value_parser = clap::value_parser!(u32).range(1..=7200))]
    pub min_clock_initial: u32,

    /// Seconds a room may wait for its game to start (the second player) before it is deleted.
    /// Finished and running games are kept.
    #[arg(long, env = "SENET_UNSTARTED_ROOM_TTL", default_value = "86400", value_parser = parse_positive_seconds)]
    pub unstarted_room_ttl: Duration,

    /// Seconds a room with no connection stays in memory before its task ends.
    #[arg(long, env = "SENET_ROOM_IDLE_AFTER", default_value = "30", value_parser = parse_seconds)]
    pub room_idle_after: Duration,

    /// Rooms held in memory: past it, loading another lets the least recently used idle room
    /// (no connection, no running clock) go. Rooms in use are never let go.
    #[arg(long, env = "SENET_MAX_ROOMS_IN_MEMORY", default_value_t = DEFAULT_MAX_IN_MEMORY, value_parser = parse_positive_count)]
    pub max_rooms_in_memory: usize,

    /// Events a connection may fall behind before it gets a fresh state instead of them.
    #[arg(long, env = "SENET_BROADCAST_CAPACITY", default_value = "64", value_parser = clap::value_parser!(u16).range(1..))]
    pub broadcast_capacity: u16,

    /// Seconds between pings on each WebSocket; a peer silent for three is dropped.
    #[arg(long, env = "SENET_PING_INTERVAL", default_value = "15", value_parser = parse_positive_seconds)]
    pub ping_interval: Duration,

    /// Seconds between checks that a player the log shows connected to another
    /// instance (PostgreSQL) still is, so one whose instance died is seen to be gone; also
    /// between checks that the instances whose spectators are counted still live.
    #[arg(long, env = "SENET_PRESENCE_CHECK", default_value = "10", value_parser = parse_positive_seconds)]
    pub presence_check: Duration,

    /// Messages one WebSocket may send in any second, pings included; more close it (1008).
    /// All the sockets of one seat share the same budget.
    #[arg(long, env = "SENET_MAX_MESSAGES_PER_SECOND", default_value = "20")]
    pub max_messages_per_second: usize,

    /// Sockets one seat may hold at once; a new one past this closes the oldest (4000).
    #[arg(long, env = "SENET_MAX_SOCKETS_PER_SEAT", default_value = "4", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_sockets_per_seat: u16,

    /// Open seeks (lobby listings) one client address may hold at once; past it, 429. 0: no cap.
    #[arg(long, env = "SENET_MAX_SEEKS_PER_ADDRESS", default_value = "3")]
    pub max_seeks_per_address: u32,

    /// Seconds a seek stays listed after its creator's lobby page is gone (or if it never
    /// opened one): a reload keeps it, a closed tab withdraws it.
    #[arg(long, env = "SENET_SEEK_GRACE", default_value = "5", value_parser = parse_positive_seconds)]
    pub seek_grace: Duration,

    /// Milliseconds the computer waits before each throw and move, so a person can follow.
    #[arg(long, env = "SENET_AI_DELAY_MS", default_value = "700")]
    pub ai_delay_ms: u64,

    /// AI searches running at once over all rooms (default: the number of CPUs).
    #[arg(long, env = "SENET_AI_MAX_CONCURRENT", default_value_t = default_max_concurrent(), value_parser = clap::value_parser!(u16).range(1..))]
    pub ai_max_concurrent: u16,

    /// Serve `/metrics` on this address (such as `127.0.0.1:9100`) instead of the public one.
    #[arg(long, env = "SENET_METRICS_LISTEN")]
    pub metrics_listen: Option<String>,

    #[command(flatten)]
    pub connections: ConnectionSettings,

    #[command(flatten)]
    pub edge: EdgeSettings,

    /// Seconds shutdown (SIGTERM) waits for connections and rooms to close; past it, the
    /// process exits with whatever is left (every event a client saw is committed already).
    /// Keep it below the container's stop timeout (10 s by default), which ends in SIGKILL.
    #[arg(long, env = "SENET_SHUTDOWN_GRACE", default_value = "8", value_parser = parse_positive_seconds)]
    pub shutdown_grace: Duration,

    /// Log lines as human-readable text or as JSON objects.
    #[arg(long, env = "SENET_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

impl Config {
    /// The defaults, as `senet serve` with no flags and no environment.
    pub fn with_database(database_url: impl Into<String>) -> Config {
        Config {
            listen: "127.0.0.1:8080".into(),
            database_url: database_url.into(),
            abandon_after: Duration::from_secs(60),
            min_clock_initial: 30,
            idle_turn_after: Duration::from_secs(300),
            unstarted_room_ttl: Duration::from_secs(24 * 3600),
            room_idle_after: Duration::from_secs(30),
            max_rooms_in_memory: DEFAULT_MAX_IN_MEMORY,
            broadcast_capacity: 64,
            ping_interval: Duration::from_secs(15),
            presence_check: Duration::from_secs(10),
            max_messages_per_second: 20,
            max_sockets_per_seat: 4,
            max_seeks_per_address: 3,
            seek_grace: Duration::from_secs(5),
            ai_delay_ms: 700,
            ai_max_concurrent: default_max_concurrent(),
            metrics_listen: None,
            connections: ConnectionSettings::default(),
            edge: EdgeSettings::default(),
            shutdown_grace: Duration::from_secs(8),
            log_format: LogFormat::Text,
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
            max_in_memory: self.max_rooms_in_memory,
            ..RoomConfig::default()
        }
    }
}

impl Config {
    pub fn lobby_config(&self) -> LobbyConfig {
        LobbyConfig {
            max_seeks_per_address: self.max_seeks_per_address,
            grace: self.seek_grace,
        }
    }
}

const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(5);
const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Below the usual hard limit of 20,000 open files, with room for the database and logs.
const DEFAULT_MAX_TCP_CONNECTIONS: usize = 17_000;
const DEFAULT_MAX_TCP_CONNECTIONS_PER_ADDRESS: usize = 128;
const DEFAULT_CREATE_BURST: u32 = 30;
const DEFAULT_CREATE_PER_MINUTE: u32 = 30;
const DEFAULT_JOIN_BURST: u32 = 60;
const DEFAULT_JOIN_PER_MINUTE: u32 = 60;

/// `senet serve` settings for the public listener: every TCP connection from the moment it is
/// accepted (WebSockets have their own, in [`ConnectionSettings`], on top of these), who a
/// request comes from, and the quotas per client address.
#[derive(Clone, Debug, clap::Args)]
pub struct EdgeSettings {
    /// Seconds a client may take to send a request's headers, counted from the connection's
    /// start or the end of the previous answer; past it, the connection is closed.
    #[arg(long, env = "SENET_HEADER_READ_TIMEOUT", default_value = "10", value_parser = parse_positive_seconds)]
    pub header_read_timeout: Duration,

    /// Seconds a kept-alive connection may wait for its next request before it is closed.
    #[arg(long, env = "SENET_KEEP_ALIVE_TIMEOUT", default_value = "5", value_parser = parse_positive_seconds)]
    pub keep_alive_timeout: Duration,

    /// Seconds an HTTP request may take, its body included; past it, 408 (a WebSocket's
    /// life is not a request: only its handshake counts).
    #[arg(long, env = "SENET_REQUEST_TIMEOUT", default_value = "15", value_parser = parse_positive_seconds)]
    pub request_timeout: Duration,

    /// Open TCP connections in all, counted from accept; past it, new ones get a bare 503 and
    /// are closed. 0: no cap (keep it below the open-file limit).
    #[arg(long, env = "SENET_MAX_TCP_CONNECTIONS", default_value_t = DEFAULT_MAX_TCP_CONNECTIONS)]
    pub max_tcp_connections: usize,

    /// Open TCP connections from one address, counted from accept; past it, a bare 429 and
    /// closed. 0: no cap. Connections from a trusted proxy are not capped per address.
    #[arg(long, env = "SENET_MAX_TCP_CONNECTIONS_PER_ADDRESS", default_value_t = DEFAULT_MAX_TCP_CONNECTIONS_PER_ADDRESS)]
    pub max_tcp_connections_per_address: usize,

    /// Reverse proxies in front of the server (comma-separated networks or addresses, such as
    /// `10.0.0.0/8,127.0.0.1`): for requests from them, the client's address is the right-most
    /// untrusted hop of `X-Forwarded-For` (else `Forwarded`). Default: none, every client is
    /// its socket's address.
    #[arg(long, env = "SENET_TRUSTED_PROXIES", default_value = "")]
    pub trusted_proxies: TrustedProxies,

    /// Rooms one client address may create at once (`POST /api/rooms`); past it and the rate,
    /// 429 with `Retry-After`. 0: no quota.
    #[arg(long, env = "SENET_CREATE_BURST", default_value_t = DEFAULT_CREATE_BURST)]
    pub create_burst: u32,

    /// Rooms one client address may create per minute after its burst.
    #[arg(long, env = "SENET_CREATE_PER_MINUTE", default_value_t = DEFAULT_CREATE_PER_MINUTE, value_parser = clap::value_parser!(u32).range(1..))]
    pub create_per_minute: u32,

    /// Joins (`POST /api/rooms/{id}/join`) one client address may make at once. 0: no quota.
    #[arg(long, env = "SENET_JOIN_BURST", default_value_t = DEFAULT_JOIN_BURST)]
    pub join_burst: u32,

    /// Joins one client address may make per minute after its burst.
    #[arg(long, env = "SENET_JOIN_PER_MINUTE", default_value_t = DEFAULT_JOIN_PER_MINUTE, value_parser = clap::value_parser!(u32).range(1..))]
    pub join_per_minute: u32,
}

impl Default for EdgeSettings {
    fn default() -> Self {
        EdgeSettings {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_tcp_connections: DEFAULT_MAX_TCP_CONNECTIONS,
            max_tcp_connections_per_address: DEFAULT_MAX_TCP_CONNECTIONS_PER_ADDRESS,
            trusted_proxies: TrustedProxies::default(),
            create_burst: DEFAULT_CREATE_BURST,
            create_per_minute: DEFAULT_CREATE_PER_MINUTE,
            join_burst: DEFAULT_JOIN_BURST,
            join_per_minute: DEFAULT_JOIN_PER_MINUTE,
        }
    }
}

/// Seconds, possibly fractional (`0.5`), as a duration.
fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is not a valid duration"))
}

/// A count of at least one.
fn parse_positive_count(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(0) | Err(_) => Err(format!("{text:?} is not a whole number of at least 1")),
        Ok(count) => Ok(count),
    }
}

/// Like [`parse_seconds`], but more than zero.
fn parse_positive_seconds(text: &str) -> Result<Duration, String> {
    match parse_seconds(text)? {
        Duration::ZERO => Err("must be more than 0 seconds".into()),
        positive => Ok(positive),
    }
}

//! `senet serve` settings: each is a flag with an environment variable and
//! a default that works on a laptop.

use std::time::Duration;

use crate::room::bot::default_max_concurrent;
use crate::room::{BotConfig, RoomConfig};
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

    /// The shortest initial time, in seconds, a timed game may be created with (the longest is
    /// two hours).
    #[arg(long, env = "SENET_MIN_CLOCK_INITIAL", default_value = "30", value_parser = clap::value_parser!(u32).range(1..=7200))]
    pub min_clock_initial: u32,

    /// Seconds a room with no connection stays in memory before its task ends.
    #[arg(long, env = "SENET_ROOM_IDLE_AFTER", default_value = "30", value_parser = parse_seconds)]
    pub room_idle_after: Duration,

    /// Events a connection may fall behind before it gets a fresh state instead of them.
    #[arg(long, env = "SENET_BROADCAST_CAPACITY", default_value = "64", value_parser = clap::value_parser!(u16).range(1..))]
    pub broadcast_capacity: u16,

    /// Seconds between pings on each WebSocket; a peer silent for three is dropped.
    #[arg(long, env = "SENET_PING_INTERVAL", default_value = "15", value_parser = parse_positive_seconds)]
    pub ping_interval: Duration,

    /// Seconds between checks that a player the log shows connected to another
    /// instance (PostgreSQL) still is, so one whose instance died is seen to be gone.
    #[arg(long, env = "SENET_PRESENCE_CHECK", default_value = "10", value_parser = parse_positive_seconds)]
    pub presence_check: Duration,

    /// Messages one WebSocket may send in any second, pings included; more close it (1008).
    /// All the sockets of one seat share the same budget.
    #[arg(long, env = "SENET_MAX_MESSAGES_PER_SECOND", default_value = "20")]
    pub max_messages_per_second: usize,

    /// Sockets one seat may hold at once; a new one past this closes the oldest (4000).
    #[arg(long, env = "SENET_MAX_SOCKETS_PER_SEAT", default_value = "4", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_sockets_per_seat: u16,

    /// Milliseconds the computer waits before each throw and move, so a person can follow.
    #[arg(long, env = "SENET_AI_DELAY_MS", default_value = "700")]
    pub ai_delay_ms: u64,

    /// AI searches running at once over all rooms (default: the number of CPUs).
    #[arg(long, env = "SENET_AI_MAX_CONCURRENT", default_value_t = default_max_concurrent(), value_parser = clap::value_parser!(u16).range(1..))]
    pub ai_max_concurrent: u16,

    #[command(flatten)]
    pub connections: ConnectionSettings,

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
            room_idle_after: Duration::from_secs(30),
            broadcast_capacity: 64,
            ping_interval: Duration::from_secs(15),
            presence_check: Duration::from_secs(10),
            max_messages_per_second: 20,
            max_sockets_per_seat: 4,
            ai_delay_ms: 700,
            ai_max_concurrent: default_max_concurrent(),
            connections: ConnectionSettings::default(),
            log_format: LogFormat::Text,
        }
    }

    pub fn room_config(&self) -> RoomConfig {
        RoomConfig {
            abandon_after: self.abandon_after,
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
            ..RoomConfig::default()
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

/// Like [`parse_seconds`], but more than zero.
fn parse_positive_seconds(text: &str) -> Result<Duration, String> {
    match parse_seconds(text)? {
        Duration::ZERO => Err("must be more than 0 seconds".into()),
        positive => Ok(positive),
    }
}

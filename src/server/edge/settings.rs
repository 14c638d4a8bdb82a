//! `senet serve`'s settings for the public listener ([`EdgeSettings`]), each default written
//! once as a constant.

use std::time::Duration;

use super::TrustedProxies;
use crate::server::flags::{parse_positive_seconds, seconds};

pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(5);
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(15);
/// Below the usual hard limit of 20,000 open files, with room for the database and logs.
pub const DEFAULT_MAX_TCP_CONNECTIONS: usize = 17_000;
pub const DEFAULT_MAX_TCP_CONNECTIONS_PER_ADDRESS: usize = 128;
pub const DEFAULT_CREATE_BURST: u32 = 30;
pub const DEFAULT_CREATE_PER_MINUTE: u32 = 30;
pub const DEFAULT_JOIN_BURST: u32 = 60;
pub const DEFAULT_JOIN_PER_MINUTE: u32 = 60;
/// New identities (`POST /api/me`, `POST /api/me/redeem`) one address may make at once, then
/// [`DEFAULT_IDENTIFY_PER_HOUR`] (issue 44): a family or a small office at once, never a crowd
/// of spectators (docs/MODERATION.md measures what an address can field).
pub const DEFAULT_IDENTIFY_BURST: u32 = 5;
pub const DEFAULT_IDENTIFY_PER_HOUR: u32 = 6;
/// Class joins (`POST /api/classes/join`, issue 50) one address may try at once: a whole class
/// of [`crate::class::MAX_PUPILS`] behind one school address, with room for typing mistakes;
/// then [`DEFAULT_CLASS_JOIN_PER_MINUTE`], which is what paces guessing a code. A quota of
/// its own: pupils never take from the strangers' quotas.
pub const DEFAULT_CLASS_JOIN_BURST: u32 = 90;
pub const DEFAULT_CLASS_JOIN_PER_MINUTE: u32 = 30;

/// `senet serve` settings for the public listener: every TCP connection from the moment it is
/// accepted (WebSockets have their own, in [`ConnectionSettings`], on top of these), who a
/// request comes from, and the quotas per client address.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct EdgeSettings {
    /// Seconds a client may take to send a request's headers, counted from the connection's
    /// start or the end of the previous answer; past it, the connection is closed.
    #[arg(long, env = "SENET_HEADER_READ_TIMEOUT", default_value = seconds(DEFAULT_HEADER_READ_TIMEOUT), value_parser = parse_positive_seconds)]
    pub header_read_timeout: Duration,

    /// Seconds a kept-alive connection may wait for its next request before it is closed.
    #[arg(long, env = "SENET_KEEP_ALIVE_TIMEOUT", default_value = seconds(DEFAULT_KEEP_ALIVE_TIMEOUT), value_parser = parse_positive_seconds)]
    pub keep_alive_timeout: Duration,

    /// Seconds an HTTP request may take, its body included; past it, 408 (a WebSocket's
    /// life is not a request: only its handshake counts).
    #[arg(long, env = "SENET_REQUEST_TIMEOUT", default_value = seconds(DEFAULT_REQUEST_TIMEOUT), value_parser = parse_positive_seconds)]
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

    /// New identities one client address may make at once: `POST /api/me` and
    /// `POST /api/me/redeem` (what bounds guessing transfer codes); past it and the rate, 429
    /// with `Retry-After`. A quota of its own, apart from rooms'. 0: no quota.
    #[arg(long, env = "SENET_IDENTIFY_BURST", default_value_t = DEFAULT_IDENTIFY_BURST)]
    pub identify_burst: u32,

    /// New identities one client address may make per hour after its burst.
    #[arg(long, env = "SENET_IDENTIFY_PER_HOUR", default_value_t = DEFAULT_IDENTIFY_PER_HOUR, value_parser = clap::value_parser!(u32).range(1..))]
    pub identify_per_hour: u32,

    /// Class joins (right code or wrong) one client address may try at once; past it and the
    /// rate, 429 with `Retry-After`. 0: no quota.
    #[arg(long, env = "SENET_CLASS_JOIN_BURST", default_value_t = DEFAULT_CLASS_JOIN_BURST)]
    pub class_join_burst: u32,

    /// Class joins one client address may try per minute after its burst.
    #[arg(long, env = "SENET_CLASS_JOIN_PER_MINUTE", default_value_t = DEFAULT_CLASS_JOIN_PER_MINUTE, value_parser = clap::value_parser!(u32).range(1..))]
    pub class_join_per_minute: u32,
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
            identify_burst: DEFAULT_IDENTIFY_BURST,
            identify_per_hour: DEFAULT_IDENTIFY_PER_HOUR,
            class_join_burst: DEFAULT_CLASS_JOIN_BURST,
            class_join_per_minute: DEFAULT_CLASS_JOIN_PER_MINUTE,
        }
    }
}

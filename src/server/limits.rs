//! The WebSocket endpoint's front door ([`Gate`]): the origin check, caps on open connections
//! overall and per client address, and the per-socket buffer sizes. The checks run before the
//! upgrade, so a refused client gets a plain 403 or 429 and costs nothing more. Each admitted
//! connection holds a [`ConnectionPermit`] until it ends; the permit also keeps the
//! open-connections gauge.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::HeaderMap;

use super::edge::client::ClientAddr;
use super::error::AppError;
use super::origin::{AllowedOrigins, Origins, PublicOrigins};
use crate::protocol::DEFAULT_WS_READ_BUFFER;
use crate::telemetry::{self, GaugeGuard};

/// Bytes that may queue for a client that does not read before it is dropped.
const DEFAULT_WS_MAX_WRITE_BUFFER: usize = 64 * 1024;
const DEFAULT_WS_SEND_TIMEOUT_SECS: u64 = 10;
const DEFAULT_MAX_CONNECTIONS: usize = 16_000;
const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 64;

/// `senet serve` settings for WebSocket connections.
#[derive(Clone, Debug, PartialEq, Eq, clap::Args)]
pub struct ConnectionSettings {
    /// Other sites whose pages may open WebSockets here (comma-separated origins such as
    /// `https://senet.example`, or *); the server's own pages always may. Others get 403.
    #[arg(long, env = "SENET_ALLOWED_ORIGINS", default_value = "")]
    pub allowed_origins: AllowedOrigins,

    /// The server's own public origins (comma-separated, such as `https://senet.example`):
    /// when set, a WebSocket handshake's `Origin` must be one of these (or allowed above),
    /// whatever its `Host` header says. Default: the origin `Host` names.
    #[arg(long, env = "SENET_PUBLIC_ORIGIN", default_value = "")]
    pub public_origin: PublicOrigins,

    /// Open WebSocket connections in all; past it, 429. 0: no cap (the open-file limit still
    /// applies: keep this below it).
    #[arg(long, env = "SENET_MAX_CONNECTIONS", default_value_t = DEFAULT_MAX_CONNECTIONS)]
    pub max_connections: usize,

    /// Open WebSocket connections from one client address; past it, 429. 0: no cap (use 0
    /// behind a reverse proxy, where every client has the proxy's address).
    #[arg(long, env = "SENET_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS)]
    pub max_connections_per_address: usize,

    /// Bytes read from a socket at once; this buffer is allocated for every connection.
    #[arg(long, env = "SENET_WS_READ_BUFFER", default_value_t = DEFAULT_WS_READ_BUFFER)]
    pub ws_read_buffer: usize,

    /// Bytes that may wait for a client that does not read; past it, the connection is dropped.
    #[arg(long, env = "SENET_WS_MAX_WRITE_BUFFER", default_value_t = DEFAULT_WS_MAX_WRITE_BUFFER)]
    pub ws_max_write_buffer: usize,

    /// Seconds a client may take to accept what is sent to it (it stopped reading, or its
    /// network is stuck) before the connection is dropped.
    #[arg(long, env = "SENET_WS_SEND_TIMEOUT", default_value_t = DEFAULT_WS_SEND_TIMEOUT_SECS)]
    pub ws_send_timeout: u64,
}

impl Default for ConnectionSettings {
    fn default() -> Self {
        ConnectionSettings {
            allowed_origins: AllowedOrigins::default(),
            public_origin: PublicOrigins::default(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            ws_read_buffer: DEFAULT_WS_READ_BUFFER,
            ws_max_write_buffer: DEFAULT_WS_MAX_WRITE_BUFFER,
            ws_send_timeout: DEFAULT_WS_SEND_TIMEOUT_SECS,
        }
    }
}

/// Decides which WebSocket handshakes proceed, and how the admitted sockets are sized.
#[derive(Debug)]
pub struct Gate {
    origins: Origins,
    limiter: Arc<ConnectionLimiter>,
    pub read_buffer: usize,
    pub max_write_buffer: usize,
    pub send_timeout: Duration,
}

impl Gate {
    pub fn new(settings: &ConnectionSettings) -> Self {
        Gate {
            origins: Origins {
                public: settings.public_origin.clone(),
                allowed: settings.allowed_origins.clone(),
            },
            limiter: ConnectionLimiter::new(
                ConnectionCaps {
                    total: settings.max_connections,
                    per_address: settings.max_connections_per_address,
                },
                telemetry::CONNECTIONS_OPEN,
            ),
            read_buffer: settings.ws_read_buffer,
            max_write_buffer: settings.ws_max_write_buffer,
            send_timeout: Duration::from_secs(settings.ws_send_timeout),
        }
    }

    /// The WebSocket connections open now.
    pub fn open_connections(&self) -> usize {
        self.limiter.open()
    }

    /// Admits a handshake from `client` with these headers, or says why not (403 or 429).
    pub fn admit(
        &self,
        headers: &HeaderMap,
        client: ClientAddr,
    ) -> Result<ConnectionPermit, AppError> {
        if !self.origins.allows(headers) {
            return Err(AppError::OriginNotAllowed);
        }
        self.limiter
            .admit(client.0)
            .map_err(|cap| AppError::TooManyConnections(cap.to_string()))
    }
}

/// The caps; 0 means no cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionCaps {
    pub total: usize,
    pub per_address: usize,
}

/// Counts open connections against the caps: WebSockets here, every TCP connection in
/// [`super::edge`].
#[derive(Debug)]
pub struct ConnectionLimiter {
    caps: ConnectionCaps,
    /// The gauge of open connections that the permits keep.
    gauge: &'static str,
    open: Mutex<OpenConnections>,
}

#[derive(Debug, Default)]
struct OpenConnections {
    total: usize,
    /// Only addresses with at least one open connection, so the map cannot grow without bound.
    by_address: HashMap<IpAddr, usize>,
}

/// Which cap refused a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum CapReached {
    #[error("the server has reached its limit of open connections")]
    Total,
    #[error("too many open connections from this address")]
    PerAddress,
}

impl ConnectionLimiter {
    pub fn new(caps: ConnectionCaps, gauge: &'static str) -> Arc<Self> {
        Arc::new(ConnectionLimiter {
            caps,
            gauge,
            open: Mutex::new(OpenConnections::default()),
        })
    }

    /// The connections open now.
    pub fn open(&self) -> usize {
        self.open
            .lock()
            .expect("the limiter's lock is never poisoned")
            .total
    }

    /// Admits one more connection from `address`, or says which cap is reached.
    pub fn admit(self: &Arc<Self>, address: IpAddr) -> Result<ConnectionPermit, CapReached> {
        self.admit_from(Some(address))
    }

    /// Admits one more connection under the overall cap alone.
    pub fn admit_any(self: &Arc<Self>) -> Result<ConnectionPermit, CapReached> {
        self.admit_from(None)
    }

    fn admit_from(
        self: &Arc<Self>,
        address: Option<IpAddr>,
    ) -> Result<ConnectionPermit, CapReached> {
        let mut open = self
            .open
            .lock()
            .expect("the limiter's lock is never poisoned");
        if reached(self.caps.total, open.total) {
            return Err(CapReached::Total);
        }
        if let Some(address) = address {
            let from_address = open.by_address.entry(address).or_insert(0);
            if reached(self.caps.per_address, *from_address) {
                if *from_address == 0 {
                    open.by_address.remove(&address);
                }
                return Err(CapReached::PerAddress);
            }
            *from_address += 1;
        }
        open.total += 1;
        Ok(ConnectionPermit {
            limiter: Arc::clone(self),
            address,
            _gauge: GaugeGuard::new(self.gauge),
        })
    }

    fn release(&self, address: Option<IpAddr>) {
        let mut open = self
            .open
            .lock()
            .expect("the limiter's lock is never poisoned");
        open.total -= 1;
        let Some(address) = address else { return };
        if let Some(count) = open.by_address.get_mut(&address) {
            *count -= 1;
            if *count == 0 {
                open.by_address.remove(&address);
            }
        }
    }
}

fn reached(cap: usize, open: usize) -> bool {
    cap != 0 && open >= cap
}

/// One admitted connection; dropping it frees its place.
#[derive(Debug)]
pub struct ConnectionPermit {
    limiter: Arc<ConnectionLimiter>,
    /// None for a connection counted under the overall cap alone.
    address: Option<IpAddr>,
    _gauge: GaugeGuard,
}

impl Drop for ConnectionPermit {
    fn drop(&mut self) {
        self.limiter.release(self.address);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_overall_and_per_address_and_frees_on_drop() {
        let limiter = ConnectionLimiter::new(
            ConnectionCaps {
                total: 3,
                per_address: 2,
            },
            telemetry::CONNECTIONS_OPEN,
        );
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let first = limiter.admit(a).unwrap();
        let _second = limiter.admit(a).unwrap();
        assert_eq!(limiter.admit(a).unwrap_err(), CapReached::PerAddress);
        let _third = limiter.admit(b).unwrap();
        assert_eq!(limiter.admit(b).unwrap_err(), CapReached::Total);
        drop(first);
        let _again = limiter.admit(a).unwrap();
        assert_eq!(limiter.open.lock().unwrap().by_address.len(), 2);
        assert_eq!(limiter.admit_any().unwrap_err(), CapReached::Total);
    }

    #[test]
    fn zero_means_no_cap() {
        let limiter = ConnectionLimiter::new(
            ConnectionCaps {
                total: 0,
                per_address: 0,
            },
            telemetry::CONNECTIONS_OPEN,
        );
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let permits: Vec<_> = (0..100).map(|_| limiter.admit(a).unwrap()).collect();
        drop(permits);
        assert!(limiter.open.lock().unwrap().by_address.is_empty());
    }
}

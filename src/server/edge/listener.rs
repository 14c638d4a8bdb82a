//! The accept loop and one task per TCP connection.
//!
//! Each accepted connection takes a permit from the TCP [`ConnectionLimiter`] or is refused
//! on the spot. The permit travels inside the socket ([`Counted`]), so it is held as long as
//! the socket is open, across a WebSocket upgrade too, and given back when it closes.
//!
//! hyper's HTTP/1 server bounds the time to receive a request's headers, from the
//! connection's start and again from the end of each answer (`header_read_timeout`: a silent
//! or slow-headers client is cut off). A kept-alive connection with no request in flight is
//! closed after the shorter keep-alive timeout ([`Activity`]). Only HTTP/1.1 is spoken: the
//! browser's page and the reverse proxy in deploy/ need nothing else.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::response::Response;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service;

use super::EdgeSettings;
use super::client::{ClientAddr, TrustedProxies};
use crate::server::limits::{CapReached, ConnectionCaps, ConnectionLimiter, ConnectionPermit};
use crate::telemetry;

/// After a failed accept that is not the peer's doing (out of files, say), wait this long
/// before the next rather than spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// What a refused connection is told: fixed bytes, written once without reading the request.
const FULL: &[u8] =
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";
const TOO_MANY: &[u8] =
    b"HTTP/1.1 429 Too Many Requests\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// The listener's limits: the TCP connection caps and the timeouts of idle connections.
#[derive(Debug)]
pub struct Edge {
    limiter: Arc<ConnectionLimiter>,
    trusted: TrustedProxies,
    header_read_timeout: Duration,
    keep_alive_timeout: Duration,
}

impl Edge {
    pub fn new(settings: &EdgeSettings) -> Edge {
        Edge {
            limiter: ConnectionLimiter::new(
                ConnectionCaps {
                    total: settings.max_tcp_connections,
                    per_address: settings.max_tcp_connections_per_address,
                },
                telemetry::TCP_CONNECTIONS_OPEN,
            ),
            trusted: settings.trusted_proxies.clone(),
            header_read_timeout: settings.header_read_timeout,
            keep_alive_timeout: settings.keep_alive_timeout,
        }
    }
}

impl Edge {
    /// A place for a connection from `peer`: a proxy's connections carry many clients, so
    /// only the overall cap applies to them (each client is counted by the limits behind).
    fn admit(&self, peer: SocketAddr) -> Result<ConnectionPermit, CapReached> {
        if self.trusted.contains(peer.ip()) {
            self.limiter.admit_any()
        } else {
            self.limiter.admit(ClientAddr::of(peer.ip()).0)
        }
    }
}

/// Accepts connections and serves `app` on each until `shutdown`; the connection tasks are
/// tracked by `tracker` (each closes gracefully on `shutdown`).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    edge: Arc<Edge>,
    shutdown: CancellationToken,
    tracker: TaskTracker,
) {
    loop {
        let (tcp, peer) = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    if !is_peer_error(&error) {
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(ACCEPT_BACKOFF).await;
                    }
                    continue;
                }
            },
        };
        match edge.admit(peer) {
            Ok(permit) => {
                let connection = Counted {
                    tcp,
                    _permit: permit,
                };
                tracker.spawn(serve_connection(
                    connection,
                    peer,
                    app.clone(),
                    edge.clone(),
                    shutdown.clone(),
                ));
            }
            Err(cap) => refuse(&tcp, cap),
        }
    }
}

/// Errors of one connection that came and went before it was accepted.
fn is_peer_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    matches!(
        error.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// Answers a connection past a cap and closes it. Its send buffer is empty at accept, so one
/// non-blocking write sends the whole answer; whatever it sent is never read.
fn refuse(tcp: &TcpStream, cap: CapReached) {
    metrics::counter!(telemetry::TCP_CONNECTIONS_REFUSED).increment(1);
    let answer = match cap {
        CapReached::Total => FULL,
        CapReached::PerAddress => TOO_MANY,
    };
    let _ = tcp.try_write(answer);
}

/// Serves HTTP on one connection until it closes, times out, or the server shuts down.
async fn serve_connection(
    connection: Counted,
    peer: SocketAddr,
    app: Router,
    edge: Arc<Edge>,
    shutdown: CancellationToken,
) {
    // Frames are small and interactive: send them at once, not after Nagle's algorithm waits
    // for the peer's delayed ack.
    if let Err(error) = connection.tcp.set_nodelay(true) {
        tracing::warn!(%error, "could not set TCP_NODELAY");
    }
    let activity = Arc::new(Activity::default());
    let service = {
        let activity = activity.clone();
        let edge = edge.clone();
        hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            // What handlers read as the client's address.
            let client = edge.trusted.client(peer.ip(), request.headers());
            request.extensions_mut().insert(client);
            let busy = activity.begin();
            let mut app = app.clone();
            async move {
                let response: Result<Response, Infallible> = app.call(request).await;
                drop(busy);
                response
            }
        })
    };
    let mut connection = pin!(
        http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(edge.header_read_timeout)
            .serve_connection(TokioIo::new(connection), service)
            .with_upgrades()
    );
    let mut idle = pin!(activity.idle_for(edge.keep_alive_timeout));
    let mut closing = false;
    loop {
        tokio::select! {
            served = connection.as_mut() => {
                if let Err(error) = served {
                    tracing::debug!(%error, "connection ended");
                }
                return;
            }
            // Both close the connection once its request in flight, if any, is answered.
            _ = shutdown.cancelled(), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            _ = idle.as_mut(), if !closing => {
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
}

/// A TCP connection with its place under the caps, given back when the socket is dropped.
struct Counted {
    tcp: TcpStream,
    _permit: ConnectionPermit,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.tcp).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}

/// Whether a connection has a request in flight, for the keep-alive timeout. Before its first
/// request a connection is bounded by the header-read timeout alone.
#[derive(Default)]
struct Activity {
    in_flight: AtomicUsize,
    served: AtomicBool,
    changed: Notify,
}

/// A request in flight; dropped when its answer is ready.
struct Busy(Arc<Activity>);

impl Activity {
    fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::SeqCst);
        self.served.store(true, Ordering::SeqCst);
        self.changed.notify_waiters();
        Busy(self.clone())
    }

    /// Returns once the connection has been idle (served, nothing in flight) for `keep_alive`.
    async fn idle_for(self: Arc<Self>, keep_alive: Duration) {
        loop {
            let mut changed = pin!(self.changed.notified());
            // Registered before the check, so a change right after it is not missed.
            changed.as_mut().enable();
            let idle =
                self.served.load(Ordering::SeqCst) && self.in_flight.load(Ordering::SeqCst) == 0;
            if !idle {
                changed.await;
                continue;
            }
            tokio::select! {
                _ = tokio::time::sleep(keep_alive) => return,
                _ = changed => {}
            }
        }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.0.changed.notify_waiters();
    }
}

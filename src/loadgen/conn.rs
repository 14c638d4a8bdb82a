//! One measured WebSocket client connection, shared by the game players and the echo baseline:
//! it paces what it sends, times each action until its answer, and checks the event versions.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use std::net::{IpAddr, SocketAddr};

use futures_util::{SinkExt, StreamExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::Mutex;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::stats::Stats;
use super::wire::{self, ActionKind, Incoming, Running};
use crate::engine::Side;
use crate::protocol::Clocks;

/// The versions of this many of a connection's last acknowledged actions are kept, to check
/// after a reconnection that none was lost.
const ACKED_KEPT: usize = 64;

/// Our frames are a few hundred bytes: a small read buffer keeps ten thousand clients cheap
/// (tungstenite allocates 128 KiB per socket by default).
const READ_BUFFER: usize = 4 * 1024;

/// How long opening a connection (TCP and WebSocket handshake) may take; a server that stopped
/// accepting must show up as an error, not a hang.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How the load is paced: a total rate shared by every connection, and a per-connection cap
/// (the server closes a connection that sends too fast).
#[derive(Debug)]
pub struct Pacing {
    total: Option<Pacer>,
    per_connection_gap: Option<Duration>,
}

impl Pacing {
    /// `total` actions per second over all connections, at most `per_connection` frames per
    /// second on each; `None` or 0 means unpaced.
    pub fn new(total: Option<f64>, per_connection: Option<f64>) -> Arc<Self> {
        let gap = |rate: Option<f64>| {
            rate.filter(|r| *r > 0.0)
                .map(|r| Duration::from_secs_f64(1.0 / r))
        };
        Arc::new(Pacing {
            total: gap(total).map(Pacer::new),
            per_connection_gap: gap(per_connection),
        })
    }
}

/// Hands out evenly spaced send times, one per action, at a fixed total rate.
#[derive(Debug)]
struct Pacer {
    gap: Duration,
    next: Mutex<Instant>,
}

impl Pacer {
    fn new(gap: Duration) -> Self {
        Pacer {
            gap,
            next: Mutex::new(Instant::now()),
        }
    }

    async fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().await;
            // A slot in the past is not saved up: falling behind must not turn into a burst.
            let slot = (*next).max(Instant::now());
            *next = slot + self.gap;
            slot
        };
        tokio::time::sleep_until(slot).await;
    }
}

/// TCP from `source` (if any) to the URL's host, then the WebSocket handshake over it.
pub(super) async fn open_websocket(
    url: &str,
    source: Option<IpAddr>,
    player: Option<&str>,
) -> anyhow::Result<Socket> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let uri: tokio_tungstenite::tungstenite::http::Uri = url.parse()?;
    let authority = uri
        .authority()
        .ok_or_else(|| anyhow::anyhow!("{url}: no host"))?;
    let server: SocketAddr = tokio::net::lookup_host(authority.as_str())
        .await?
        .next()
        .ok_or_else(|| anyhow::anyhow!("{authority}: no address"))?;
    let socket = if server.is_ipv4() {
        TcpSocket::new_v4()?
    } else {
        TcpSocket::new_v6()?
    };
    if let Some(source) = source {
        socket.bind(SocketAddr::new(source, 0))?;
    }
    let stream = socket.connect(server).await?;
    stream.set_nodelay(true)?;
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
    let mut request = url.into_client_request()?;
    if let Some(secret) = player {
        let cookie = format!("{}={secret}", super::http::PLAYER_COOKIE).parse()?;
        request.headers_mut().insert("cookie", cookie);
    }
    let (socket, _) = tokio_tungstenite::client_async_with_config(
        request,
        MaybeTlsStream::Plain(stream),
        Some(config),
    )
    .await?;
    Ok(socket)
}

/// An action sent and not yet acknowledged.
#[derive(Debug)]
struct Pending {
    id: u64,
    kind: ActionKind,
    sent: Instant,
    /// Its latency is recorded at the first answer: its event or the reply carrying its id.
    timed: bool,
}

pub(super) type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A client connection. `seat` lets it recognise the events its actions cause.
pub struct Conn {
    socket: Socket,
    pacing: Arc<Pacing>,
    seat: Option<Side>,
    last_sent: Option<Instant>,
    next_id: u64,
    pending: Vec<Pending>,
    /// The room version last seen, to notice a gap in the events.
    version: Option<u64>,
    /// The versions of the last actions acknowledged (their event carried their id).
    acked: VecDeque<u64>,
    /// A timed game's clocks as last told, whose time runs, and when they were heard (`None`
    /// while paused: no time runs).
    clocks: Option<(Clocks, Option<Side>, Option<Instant>)>,
}

impl Conn {
    /// Opens a WebSocket to `url` (`ws://host:port/...`), from the local address `source` when
    /// given.
    pub async fn connect(
        url: &str,
        source: Option<IpAddr>,
        pacing: Arc<Pacing>,
    ) -> Result<Self, String> {
        Conn::connect_as(url, source, None, pacing).await
    }

    /// [`Conn::connect`] with a player's cookie (`player`: its secret), as a page's socket.
    pub async fn connect_as(
        url: &str,
        source: Option<IpAddr>,
        player: Option<&str>,
        pacing: Arc<Pacing>,
    ) -> Result<Self, String> {
        let opening = open_websocket(url, source, player);
        let socket = tokio::time::timeout(CONNECT_TIMEOUT, opening)
            .await
            .map_err(|_| "connect: timed out".to_string())?
            .map_err(|e| format!("connect: {e}"))?;
        Ok(Conn {
            socket,
            pacing,
            seat: None,
            last_sent: None,
            next_id: 1,
            pending: Vec::new(),
            version: None,
            acked: VecDeque::new(),
            clocks: None,
        })
    }

    /// Sends a frame that is not a measured action (e.g. `hello`), within the per-connection cap.
    pub async fn send(&mut self, text: String) -> Result<(), String> {
        if let (Some(gap), Some(last)) = (self.pacing.per_connection_gap, self.last_sent) {
            tokio::time::sleep_until(last + gap).await;
        }
        self.socket
            .send(Message::text(text))
            .await
            .map_err(|e| format!("send: {e}"))?;
        self.last_sent = Some(Instant::now());
        Ok(())
    }

    /// Sends an action built from its id, after waiting for its turn in the total rate.
    pub async fn send_action(
        &mut self,
        stats: &mut Stats,
        build: impl FnOnce(u64) -> Option<(ActionKind, String)>,
    ) -> Result<(), String> {
        let id = self.next_id;
        let Some((kind, text)) = build(id) else {
            return Ok(());
        };
        self.next_id += 1;
        if let Some(pacer) = &self.pacing.total {
            pacer.wait().await;
        }
        self.send(text).await?;
        self.pending.push(Pending {
            id,
            kind,
            sent: self.last_sent.unwrap_or_else(Instant::now),
            timed: false,
        });
        stats.actions_sent += 1;
        Ok(())
    }

    /// The room version this connection last saw (an event's, or a state's).
    pub fn version(&self) -> Option<u64> {
        self.version
    }

    /// How many of the actions acknowledged on this connection are above version `v`: after a
    /// reconnection welcomed at `v`, those were acknowledged and lost.
    pub fn acked_above(&self, v: u64) -> u64 {
        self.acked.iter().filter(|&&acked| acked > v).count() as u64
    }

    /// `side`'s remaining time at `at` as last told, if its time is the one running then (or
    /// paused on its turn).
    pub fn running_time(&self, side: Side, at: Instant) -> Option<i64> {
        let (clocks, running, heard) = self.clocks?;
        let ran = heard.map_or(0, |heard| {
            at.saturating_duration_since(heard).as_millis() as i64
        });
        let remaining = match side {
            Side::Black => clocks.black,
            Side::White => clocks.white,
        };
        (running == Some(side)).then_some(remaining - ran)
    }

    /// Forgets the actions still waiting for an answer (their socket closed: whether each was
    /// committed shows in the room's state after reconnecting) and returns how many there were.
    pub fn forget_pending(&mut self) -> u64 {
        self.pending.drain(..).count() as u64
    }

    /// Whether an action is still waiting for its reply.
    pub fn awaiting_answer(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The next text frame, with its bookkeeping done; `None` once the connection has closed.
    pub async fn recv(&mut self, stats: &mut Stats) -> Option<Incoming> {
        loop {
            let message = match self.socket.next().await {
                Some(Ok(message)) => message,
                Some(Err(error)) => {
                    stats.error(format!("socket: {error}"));
                    return None;
                }
                None => return None,
            };
            match message {
                Message::Text(text) => match Incoming::parse(&text) {
                    Ok(frame) => {
                        self.note(&frame, stats);
                        return Some(frame);
                    }
                    Err(_) => stats.error("unparseable frame"),
                },
                Message::Close(close) => {
                    let code = close.map_or(1005, |c| u16::from(c.code));
                    stats.error(format!("closed by server: {code}"));
                    return None;
                }
                _ => {}
            }
        }
    }

    /// Waits up to `limit` for the answers still owed; counts the missing ones as errors.
    pub async fn drain(&mut self, stats: &mut Stats, limit: Duration) {
        let deadline = Instant::now() + limit;
        while self.awaiting_answer() {
            match tokio::time::timeout_at(deadline, self.recv(stats)).await {
                Ok(Some(_)) => {}
                Ok(None) | Err(_) => break,
            }
        }
        for _ in self.pending.drain(..) {
            stats.error("unanswered");
        }
    }

    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }

    /// Counts the frame, times the action it answers, and checks the event version.
    fn note(&mut self, frame: &Incoming, stats: &mut Stats) {
        stats.messages_received += 1;
        if let Some(code) = frame.error_code() {
            stats.error(code);
        }
        if frame.is_event() {
            stats.events_received += 1;
            self.check_version(frame, stats);
            if let Some(kind) = self.seat.and_then(|seat| wire::caused_by(seat, frame)) {
                self.time_first_untimed(kind, stats);
            }
        } else if frame.carries_state() {
            // The welcome says which side this connection plays.
            self.seat = frame.welcome_side().or(self.seat);
            // A fresh state restarts the count of versions.
            self.version = frame.version();
        }
        if let Some((clocks, running)) = wire::clocks(frame) {
            let before = self.clocks.and_then(|(_, running, _)| running);
            let (running, heard) = match running {
                Running::Side(side) => (Some(side), Some(Instant::now())),
                Running::Stopped => (None, Some(Instant::now())),
                Running::Unchanged => (before, Some(Instant::now())),
                Running::Paused => (before, None),
            };
            self.clocks = Some((clocks, running, heard));
        }
        if let Some(id) = frame.answers()
            && let Some(at) = self.pending.iter().position(|p| p.id == id)
        {
            if frame.is_event()
                && let Some(v) = frame.version()
            {
                if self.acked.len() == ACKED_KEPT {
                    self.acked.pop_front();
                }
                self.acked.push_back(v);
            }
            let pending = self.pending.remove(at);
            stats.actions_answered += 1;
            if !pending.timed {
                stats.latency(pending.sent.elapsed());
            }
        }
    }

    fn time_first_untimed(&mut self, kind: ActionKind, stats: &mut Stats) {
        if let Some(pending) = self.pending.iter_mut().find(|p| p.kind == kind && !p.timed) {
            pending.timed = true;
            stats.latency(pending.sent.elapsed());
        }
    }

    fn check_version(&mut self, frame: &Incoming, stats: &mut Stats) {
        let Some(v) = frame.version() else {
            stats.error("event without v");
            return;
        };
        if let Some(last) = self.version
            && v != last + 1
        {
            stats.error("version gap");
        }
        self.version = Some(v);
    }
}

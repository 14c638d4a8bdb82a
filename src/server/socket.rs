//! One WebSocket skeleton for every socket here (a room's, the lobby's, any later one): the
//! handshake's sizes, one task with a single `select!` loop over the client's frames, the
//! handler's own events (a room's broadcast, the lobby's changes, deadlines), the server's
//! shutdown and a heartbeat; the limits every frame meets; and the close. A [`Handler`] says
//! only what its socket does with text and with its events.
//!
//! Every frame, pings included, meets the same limits before its handler sees it: larger than
//! 4 KiB → close 1009; past the message rate of the socket ([`RateLimit`]) or of the handler's
//! own budget (a seat's, over all its sockets) → 1008. A frame over 64 KiB or a fragmented
//! message over 64 KiB (tungstenite's limits, above ours so that anything in between still
//! reaches us) → 1009; text that is not UTF-8 → 1007; a binary frame → the handler's `bad_json`
//! error, the socket stays open. The close frame is sent within the send timeout, like every
//! other frame, so a client that stopped reading cannot hold the task or its slot.

use std::time::Duration;

use axum::Extension;
use axum::extract::FromRequestParts;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use futures_util::{FutureExt, SinkExt};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument, Span};

use super::AppState;
use super::edge::ClientAddr;
use super::edge::bans::BanWatch;
use super::error::WireError;
use super::limits::ConnectionPermit;
use super::limits::Gate;
use crate::protocol::{ErrorCode, MAX_FRAME_BYTES};
use crate::room::RateLimit;

/// Frames are queued and written together at the end of each step of the
/// connection's loop (an event and its ack, a run of events: one write,
/// one system call); this much queued is written at once.
const WRITE_BATCH_BYTES: usize = 8 * 1024;
/// Heartbeats without hearing anything before a peer counts as gone.
pub(super) const SILENT_HEARTBEATS: u32 = 3;

pub(super) const CLOSE_INVALID_DATA: u16 = 1007;
pub(super) const CLOSE_POLICY: u16 = 1008;
pub(super) const CLOSE_TOO_BIG: u16 = 1009;
pub(super) const CLOSE_RESTART: u16 = 1012;
/// An operator banned the client's address (`senet admin ban`) while the socket was open
/// (issue 44; `web/js/connection.js` says so on the page). 4000 + HTTP's 403.
pub const CLOSE_BANNED: u16 = 4003;

/// What one kind of socket does; [`open`] and [`run`] do the rest.
pub(super) trait Handler: Send {
    /// What the handler waits for besides the client's frames.
    type Event: Send;

    /// The largest frame this handler sends, when it is above `--ws-max-write-buffer`: a frame
    /// larger than the write buffer's cap can never be written, and the socket would be dropped
    /// at its first (a tournament's page of 500 players, issue 45). Still a bound: what a
    /// client that stops reading can make the server hold.
    const LARGEST_FRAME: usize = 0;

    /// Frames to send as the socket opens (the lobby's list), if any.
    fn on_open(&mut self, _peer: &mut Peer) -> impl Future<Output = Result<(), Close>> + Send {
        async { Ok(()) }
    }

    /// The handler's next event. Cancel safe: the loop drops it whenever something else comes
    /// first, and asks again.
    fn next_event(&mut self) -> impl Future<Output = Self::Event> + Send;

    fn on_event(
        &mut self,
        peer: &mut Peer,
        event: Self::Event,
    ) -> impl Future<Output = Result<(), Close>> + Send;

    /// A text frame within the limits.
    fn on_text(
        &mut self,
        peer: &mut Peer,
        text: Utf8Bytes,
    ) -> impl Future<Output = Result<(), Close>> + Send;

    /// An error as this socket words it (a frame with `t: "error"`).
    fn error_frame(&self, error: WireError) -> Utf8Bytes;

    /// A limit of the handler's own that each frame also counts against (a seat's budget).
    fn check_budget(&self) -> Result<(), Close> {
        Ok(())
    }
}

/// The frame and buffer limits of every WebSocket here. tungstenite's own limits sit above ours
/// so that an oversized frame still reaches us and gets a clean 1009.
fn with_socket_limits(ws: WebSocketUpgrade, gate: &Gate, largest_frame: usize) -> WebSocketUpgrade {
    ws.max_message_size(16 * MAX_FRAME_BYTES)
        .max_frame_size(16 * MAX_FRAME_BYTES)
        .read_buffer_size(gate.read_buffer)
        .write_buffer_size(WRITE_BATCH_BYTES.min(gate.max_write_buffer / 2))
        .max_write_buffer_size(gate.max_write_buffer.max(largest_frame))
}

/// A WebSocket handshake the gate admitted (the page's origin, the connection caps for the
/// client address the edge resolved): a refused one gets a plain 403 or 429 and costs nothing
/// more. The permit is the connection's place under the caps; its handler holds it.
pub struct Admitted {
    pub(super) ws: WebSocketUpgrade,
    pub(super) permit: ConnectionPermit,
    /// The client address the edge resolved: what the socket's own quotas count (a rematch).
    pub(super) client: ClientAddr,
}

impl FromRequestParts<AppState> for Admitted {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        // Not a WebSocket handshake at all: axum's own answer, before anything is counted.
        let ws = WebSocketUpgrade::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let Extension(client) = Extension::<ClientAddr>::from_request_parts(parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let permit = state
            .gate
            .admit(&parts.headers, client)
            .map_err(IntoResponse::into_response)?;
        Ok(Admitted { ws, permit, client })
    }
}

/// Upgrades to a socket run by `handler`, sized by the gate, under the server's shutdown and
/// task tracker, in `span` (`Span::none()` for none).
pub(super) fn open<H: Handler + 'static>(
    ws: WebSocketUpgrade,
    state: &AppState,
    client: ClientAddr,
    handler: Box<H>,
    span: Span,
) -> Response {
    let bans = state.bans.watch(client);
    let rate = RateLimit::new(state.max_messages_per_second);
    let (shutdown, ping_every) = (state.shutdown.clone(), state.ping_every);
    let send_timeout = state.gate.send_timeout;
    let tracker = state.tracker.clone();
    with_socket_limits(ws, &state.gate, H::LARGEST_FRAME).on_upgrade(move |socket| {
        let peer = Peer {
            socket,
            send_timeout,
        };
        // `run`'s future itself, not one awaiting it: an async block around it would keep its
        // own copy of the handler and the socket for the connection's whole life.
        let life = run(handler, peer, rate, ping_every, shutdown, bans);
        tracker.track_future(life.instrument(span))
    })
}

/// Why the loop ends.
pub(super) enum Close {
    /// The peer left or the socket failed: nothing more to send.
    Gone,
    With(u16, &'static str),
}

/// A socket's life. A function returning an `async move` block, not an `async fn`: an
/// `async fn`'s future keeps a second copy of its arguments (here the socket) for its whole
/// life; the handler is boxed so that axum's task, which holds the closure that made this
/// future, keeps only a pointer to it (docs/PERFORMANCE.md, memory).
#[allow(clippy::manual_async_fn)]
fn run<H: Handler>(
    mut handler: Box<H>,
    mut peer: Peer,
    rate: RateLimit,
    ping_every: Duration,
    shutdown: CancellationToken,
    mut bans: BanWatch,
) -> impl Future<Output = ()> + Send {
    async move {
        let mut heartbeat = tokio::time::interval_at(Instant::now() + ping_every, ping_every);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_heard = Instant::now();
        let mut step = handler.on_open(&mut peer).await;
        let close = loop {
            if let Err(close) = flushed(step, &mut peer).await {
                break close;
            }
            step = tokio::select! {
                _ = shutdown.cancelled() => Box::pin(pass_on_ready(&mut *handler, &mut peer)).await,
                () = bans.banned() => {
                    Err(Close::With(CLOSE_BANNED, "an operator barred this address"))
                }
                // The handlers are boxed: inline, the state of their deepest await (a few KiB)
                // would be carried by every idle connection for its whole life; boxed, it
                // exists only while a message is handled (docs/PERFORMANCE.md, memory).
                message = peer.socket.recv() => {
                    last_heard = Instant::now();
                    Box::pin(on_message(&mut *handler, &rate, &mut peer, message)).await
                }
                event = handler.next_event() => Box::pin(handler.on_event(&mut peer, event)).await,
                _ = heartbeat.tick() => {
                    if last_heard.elapsed() > ping_every * SILENT_HEARTBEATS {
                        Err(Close::Gone)
                    } else {
                        peer.queue(Message::Ping(Default::default())).await
                    }
                }
            };
        };
        peer.close(close).await;
    }
}

/// The server is shutting down: what the handler has ready (a drain's `paused`, committed before
/// the shutdown began) still goes out, then the socket closes with 1012.
async fn pass_on_ready<H: Handler>(handler: &mut H, peer: &mut Peer) -> Result<(), Close> {
    while let Some(event) = handler.next_event().now_or_never() {
        handler.on_event(peer, event).await?;
    }
    peer.flush().await?;
    Err(Close::With(CLOSE_RESTART, "server restarting"))
}

/// Writes out what a step queued, unless the step ended the loop.
async fn flushed(step: Result<(), Close>, peer: &mut Peer) -> Result<(), Close> {
    step?;
    peer.flush().await
}

/// One frame from the client: the limits, then the handler.
async fn on_message<H: Handler>(
    handler: &mut H,
    rate: &RateLimit,
    peer: &mut Peer,
    message: Option<Result<Message, axum::Error>>,
) -> Result<(), Close> {
    let message = match message {
        None | Some(Ok(Message::Close(_))) => return Err(Close::Gone),
        Some(Err(error)) => return Err(broken(error)),
        Some(Ok(message)) => message,
    };
    let len = match &message {
        Message::Text(text) => text.len(),
        Message::Binary(bytes) | Message::Ping(bytes) | Message::Pong(bytes) => bytes.len(),
        Message::Close(_) => 0,
    };
    if len > MAX_FRAME_BYTES {
        return Err(Close::With(CLOSE_TOO_BIG, "frame larger than 4 KiB"));
    }
    if !rate.allow() {
        return Err(Close::With(CLOSE_POLICY, "too many messages per second"));
    }
    handler.check_budget()?;
    match message {
        Message::Text(text) => handler.on_text(peer, text).await,
        Message::Binary(_) => {
            let error = WireError::new(ErrorCode::BadJson, "send JSON in text frames");
            peer.text(handler.error_frame(error)).await
        }
        // Pings and pongs only count.
        Message::Ping(_) | Message::Pong(_) | Message::Close(_) => Ok(()),
    }
}

/// How to end a socket whose frame could not be read: the codes RFC 6455 gives for a frame
/// that breaks the protocol's limits; otherwise the socket failed and nothing more is sent.
fn broken(error: axum::Error) -> Close {
    match error
        .into_inner()
        .downcast::<tungstenite::Error>()
        .map(|e| *e)
    {
        Ok(tungstenite::Error::Utf8(_)) => {
            Close::With(CLOSE_INVALID_DATA, "text that is not UTF-8")
        }
        Ok(tungstenite::Error::Capacity(_)) => {
            Close::With(CLOSE_TOO_BIG, "frame or message larger than 64 KiB")
        }
        _ => Close::Gone,
    }
}

/// The client's socket, with how long it may take to accept what is sent.
pub(super) struct Peer {
    pub(super) socket: WebSocket,
    /// A peer that takes longer than this to accept a frame is dropped, so a
    /// client that stops reading cannot hold the connection task (or memory).
    pub(super) send_timeout: Duration,
}

impl Peer {
    pub(super) async fn text(&mut self, text: Utf8Bytes) -> Result<(), Close> {
        self.queue(Message::Text(text)).await
    }

    /// Queues a frame; the loop writes it out ([`Peer::flush`]) after the
    /// step that queued it.
    pub(super) async fn queue(&mut self, message: Message) -> Result<(), Close> {
        within(self.send_timeout, self.socket.feed(message)).await
    }

    pub(super) async fn flush(&mut self) -> Result<(), Close> {
        within(self.send_timeout, self.socket.flush()).await
    }

    /// Ends the connection: with a close frame, unless the peer is gone already, sent within
    /// the send timeout. (Borrowing the peer: its future would otherwise hold a second copy of
    /// the socket.)
    async fn close(&mut self, close: Close) {
        if let Close::With(code, reason) = close {
            let frame = CloseFrame {
                code,
                reason: Utf8Bytes::from_static(reason),
            };
            let sent = self.socket.send(Message::Close(Some(frame)));
            let _ = within(self.send_timeout, sent).await;
        }
    }
}

async fn within(
    limit: Duration,
    io: impl Future<Output = Result<(), axum::Error>>,
) -> Result<(), Close> {
    match tokio::time::timeout(limit, io).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) | Err(_) => Err(Close::Gone),
    }
}

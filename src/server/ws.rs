//! One task per WebSocket: a single `select!` loop over the client's frames,
//! the room's broadcast, the server's shutdown and a heartbeat.
//!
//! The connection enforces the limits (frame size → close 1009; message rate,
//! per socket and per seat over all its sockets, pings included → close 1008;
//! a seat's oldest socket past its cap → close 4000), turns client frames
//! into room commands, and
//! forwards the room's frames in version order. A connection that falls
//! behind the broadcast gets a fresh `state` instead of the lost events.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{Extension, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use futures_util::SinkExt;
use serde_json::Value;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::AppState;
use super::edge::ClientAddr;
use super::error::{AppError, WireError};
use super::limits::{ConnectionPermit, Gate};
use crate::protocol::{
    Action, ClientMessage, ErrorCode, MAX_FRAME_BYTES, Reply, Request, Seat, State as RoomState,
    frame_answering, room_url,
};
use crate::room::ring;
use crate::room::{Attached, ConnId, Frame, RateLimit, RoomError, RoomHandle, Rooms, SeatBudget};
use crate::telemetry;

/// Frames are queued and written together at the end of each step of the
/// connection's loop (an event and its ack, a run of events: one write,
/// one system call); this much queued is written at once.
pub(super) const WRITE_BATCH_BYTES: usize = 8 * 1024;
/// Heartbeats without hearing anything before a peer counts as gone.
pub(super) const SILENT_HEARTBEATS: u32 = 3;

pub(super) const CLOSE_POLICY: u16 = 1008;
pub(super) const CLOSE_TOO_BIG: u16 = 1009;
pub(super) const CLOSE_RESTART: u16 = 1012;
/// The first of the codes applications may use (RFC 6455, 7.4.2).
const CLOSE_SEAT_ELSEWHERE: u16 = 4000;

/// `GET /ws/rooms/{id}`: 403 for another site's page, 429 past a connection cap, 404 for an
/// unknown room, all before the upgrade.
pub async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Extension(client): Extension<ClientAddr>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, AppError> {
    let permit = state.gate.admit(&headers, client)?;
    if !state.rooms.exists(&id).await? {
        return Err(RoomError::NotFound.into());
    }
    let connection = Box::new(Connection {
        rooms: state.rooms.clone(),
        room: id,
        token: None,
        attached: None,
        evicted: CancellationToken::new(),
        last_v: 0,
        acks: true,
        rate: RateLimit::new(state.max_messages_per_second),
        ping_every: state.ping_every,
        _permit: permit,
    });
    let shutdown = state.shutdown.clone();
    let send_timeout = state.gate.send_timeout;
    let tracker = state.tracker.clone();
    Ok(
        with_socket_limits(ws, &state.gate).on_upgrade(move |socket| {
            let peer = Peer {
                socket,
                send_timeout,
            };
            // `run`'s future itself, not one awaiting it: an async block around it would keep
            // its own copy of the connection and the socket for the connection's whole life.
            // No span of its own (one per connection costs ~350 B while it lives): the room's
            // task has one, and the connection's few log lines name the room.
            tracker.track_future(connection.run(peer, shutdown))
        }),
    )
}

/// The frame and buffer limits of every WebSocket here (rooms and the lobby). tungstenite's own
/// limits sit above ours so that an oversized frame still reaches us and gets a clean 1009;
/// past these, the socket is simply dropped.
pub(super) fn with_socket_limits(ws: WebSocketUpgrade, gate: &Gate) -> WebSocketUpgrade {
    ws.max_message_size(16 * MAX_FRAME_BYTES)
        .max_frame_size(16 * MAX_FRAME_BYTES)
        .read_buffer_size(gate.read_buffer)
        .write_buffer_size(WRITE_BATCH_BYTES.min(gate.max_write_buffer / 2))
        .max_write_buffer_size(gate.max_write_buffer)
}

/// A seat in a room, held while the connection lives.
struct Seated {
    room: RoomHandle,
    conn: ConnId,
    seat: Seat,
    frames: ring::Receiver<Arc<Frame>>,
    budget: Option<SeatBudget>,
}

impl Drop for Seated {
    fn drop(&mut self) {
        self.room.detach(self.conn);
    }
}

struct Connection {
    rooms: Rooms,
    room: String,
    /// Kept to tell this player their seat after a rematch; never logged.
    token: Option<String>,
    attached: Option<Seated>,
    /// Cancelled by the room when this seat's newer sockets push this one out; never cancelled
    /// before hello.
    evicted: CancellationToken,
    /// The last event version sent, so nothing is sent twice.
    last_v: u64,
    /// Whether a successful action gets an `ack` frame; a client that said `acks: false` in its
    /// hello finds the action's `id` in the action's last event instead.
    acks: bool,
    rate: RateLimit,
    /// How often the server pings; silence for a few of these drops the peer
    /// (a vanished network sends no close, and presence must still change).
    ping_every: Duration,
    /// This connection's place under the caps, freed when it ends.
    _permit: ConnectionPermit,
}

/// Why the loop ends.
pub(super) enum Close {
    /// The peer left or the socket failed: nothing more to send.
    Gone,
    With(u16, &'static str),
}

impl Connection {
    /// The connection's life. A function returning an `async move` block, not an `async fn`:
    /// an `async fn`'s future keeps a second copy of its arguments (here the socket) for its
    /// whole life; the connection is boxed so that axum's task, which holds the closure that
    /// made this future, keeps only a pointer to it (docs/PERFORMANCE.md, memory).
    #[allow(clippy::manual_async_fn)]
    fn run(
        mut self: Box<Self>,
        mut peer: Peer,
        shutdown: CancellationToken,
    ) -> impl Future<Output = ()> + Send {
        async move {
            let mut heartbeat =
                tokio::time::interval_at(Instant::now() + self.ping_every, self.ping_every);
            heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut last_heard = Instant::now();
            // Sockets that never say hello hold no seat; they get as long as a
            // silent peer before they are closed.
            let hello_deadline = Instant::now() + self.ping_every * SILENT_HEARTBEATS;
            let close = loop {
                let step = tokio::select! {
                    _ = shutdown.cancelled() => Err(Close::With(CLOSE_RESTART, "server restarting")),
                    // The handlers are boxed: inline, the state of their deepest await (a few KiB)
                    // would be carried by every idle connection for its whole life; boxed, it
                    // exists only while a message is handled (docs/PERFORMANCE.md, memory).
                    message = peer.socket.recv() => {
                        last_heard = Instant::now();
                        Box::pin(self.on_message(&mut peer, message)).await
                    }
                    frame = next_frame(self.attached.as_mut()) => {
                        Box::pin(self.on_frames(&mut peer, frame)).await
                    }
                    _ = self.evicted.cancelled() => Err(Close::With(
                        CLOSE_SEAT_ELSEWHERE,
                        "this seat opened too many sockets; the oldest is closed",
                    )),
                    _ = tokio::time::sleep_until(hello_deadline), if self.attached.is_none() => {
                        Err(Close::With(CLOSE_POLICY, "no hello"))
                    }
                    _ = heartbeat.tick() => {
                        if last_heard.elapsed() > self.ping_every * SILENT_HEARTBEATS {
                            Err(Close::Gone)
                        } else {
                            peer.queue(Message::Ping(Default::default())).await
                        }
                    }
                };
                let step = match step {
                    Ok(()) => peer.flush().await,
                    closing => closing,
                };
                if let Err(close) = step {
                    break close;
                }
            };
            peer.close(close).await;
        }
    }

    async fn on_message(
        &mut self,
        peer: &mut Peer,
        message: Option<Result<Message, axum::Error>>,
    ) -> Result<(), Close> {
        let text = match message {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return Err(Close::Gone),
            Some(Ok(Message::Ping(bytes) | Message::Pong(bytes))) => {
                return self.check_limits(bytes.len());
            }
            Some(Ok(Message::Text(text))) => text,
            Some(Ok(Message::Binary(bytes))) => {
                self.check_limits(bytes.len())?;
                let error = WireError::new(ErrorCode::BadJson, "send JSON in text frames");
                return peer.reply(&error_reply(error, None)).await;
            }
        };
        self.check_limits(text.len())?;
        match Request::parse(&text) {
            Ok(request) => self.on_request(peer, request).await,
            Err(bad) => {
                let error = WireError::new(bad.code, bad.message);
                peer.reply(&error_reply(error, bad.id)).await
            }
        }
    }

    fn check_limits(&mut self, len: usize) -> Result<(), Close> {
        if len > MAX_FRAME_BYTES {
            return Err(Close::With(CLOSE_TOO_BIG, "frame larger than 4 KiB"));
        }
        if !self.rate.allow() {
            return Err(Close::With(CLOSE_POLICY, "too many messages per second"));
        }
        let budget = self
            .attached
            .as_ref()
            .and_then(|seated| seated.budget.as_ref());
        if budget.is_some_and(|budget| !budget.allow()) {
            return Err(Close::With(
                CLOSE_POLICY,
                "too many messages per second from this seat's sockets",
            ));
        }
        Ok(())
    }

    async fn on_request(&mut self, peer: &mut Peer, request: Request) -> Result<(), Close> {
        let id = request.id;
        match request.message {
            ClientMessage::Ping => peer.reply(&Reply::Pong { id }).await,
            ClientMessage::Hello { token, acks } => {
                self.acks = acks;
                self.hello(peer, token, id).await
            }
            ClientMessage::Sync => match &self.attached {
                None => peer.reply(&hello_required(id)).await,
                Some(seated) => match seated.room.snapshot().await {
                    Ok(state) => self.send_state(peer, state, id).await,
                    Err(error) => peer.reply(&error_reply(error.into(), id)).await,
                },
            },
            ClientMessage::Act(action) => self.act(peer, action, id).await,
        }
    }

    async fn hello(
        &mut self,
        peer: &mut Peer,
        token: Option<String>,
        id: Option<Value>,
    ) -> Result<(), Close> {
        if self.attached.is_some() {
            let error = WireError::new(ErrorCode::BadRequest, "hello was already said");
            return peer.reply(&error_reply(error, id)).await;
        }
        let (room, attached) = match self.rooms.attach(&self.room, token.clone()).await {
            Ok(ok) => ok,
            Err(error) => return peer.reply(&error_reply(error.into(), id)).await,
        };
        let Attached {
            conn,
            seat,
            state,
            frames,
            budget,
            evicted,
        } = attached;
        self.token = token;
        self.last_v = state.v;
        let rematch = state.rematch.clone();
        self.attached = Some(Seated {
            room,
            conn,
            seat,
            frames,
            budget,
        });
        self.evicted = evicted;
        peer.reply(&Reply::Welcome { seat, state }).await?;
        match rematch {
            Some(room) => self.send_rematch_seat(peer, &room).await,
            None => Ok(()),
        }
    }

    async fn act(
        &mut self,
        peer: &mut Peer,
        action: Action,
        id: Option<Value>,
    ) -> Result<(), Close> {
        let received = telemetry::action_received(action);
        let Some(seated) = &self.attached else {
            return peer.reply(&hello_required(id)).await;
        };
        match seated.room.act(seated.conn, action).await {
            Ok(v) => {
                // The action's events are already in our queue: send them
                // first, so the answer never overtakes what it answers.
                let answer = (!self.acks).then_some(Answer { v, id: id.as_ref() });
                let answered = self.drain_until(peer, v, answer).await?;
                telemetry::action_answered(received);
                if answered {
                    return Ok(());
                }
                // Also when a fresh state replaced the events (the connection fell behind).
                peer.reply(&Reply::Ack { id, v }).await
            }
            Err(error) => peer.reply(&error_reply(error.into(), id)).await,
        }
    }

    /// Forwards the frames already queued, up to version `v`; whether they answered `answer`
    /// (see [`Connection::on_frame`]).
    async fn drain_until(
        &mut self,
        peer: &mut Peer,
        v: u64,
        answer: Option<Answer<'_>>,
    ) -> Result<bool, Close> {
        let mut answered = false;
        while self.last_v < v {
            let Some(seated) = self.attached.as_mut() else {
                break;
            };
            let frame = match seated.frames.try_recv() {
                Ok(frame) => Ok(frame),
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Closed) => Err(RecvError::Closed),
                Err(TryRecvError::Empty) => break,
            };
            answered = self.on_frame(peer, frame, answer).await?;
        }
        Ok(answered)
    }

    /// Forwards a frame from the room, and the others already behind it.
    async fn on_frames(
        &mut self,
        peer: &mut Peer,
        frame: Result<Arc<Frame>, RecvError>,
    ) -> Result<(), Close> {
        self.on_frame(peer, frame, None).await?;
        self.drain_until(peer, u64::MAX, None).await?;
        Ok(())
    }

    /// Forwards one frame from the room; `true` when it is `answer`'s event, sent as itself with
    /// the answer's id in it.
    async fn on_frame(
        &mut self,
        peer: &mut Peer,
        frame: Result<Arc<Frame>, RecvError>,
        answer: Option<Answer<'_>>,
    ) -> Result<bool, Close> {
        match frame {
            Ok(frame) => {
                if let Some(v) = frame.v {
                    if v <= self.last_v {
                        return Ok(false);
                    }
                    self.last_v = v;
                }
                let answer = answer.filter(|answer| frame.v == Some(answer.v));
                let (text, answered) = match answer {
                    Some(Answer { id: Some(id), .. }) => {
                        match frame_answering(frame.text.as_str(), id) {
                            Some(text) => (Utf8Bytes::from(text), true),
                            None => (shared_text(&frame), false),
                        }
                    }
                    answer => (shared_text(&frame), answer.is_some()),
                };
                peer.text(text).await?;
                if let Some(room) = &frame.rematch {
                    self.send_rematch_seat(peer, room).await?;
                }
                Ok(answered)
            }
            Err(RecvError::Lagged(missed)) => {
                tracing::debug!(room = %self.room, missed, "connection lagged; sending a fresh state");
                let Some(seated) = &self.attached else {
                    return Ok(false);
                };
                match seated.room.snapshot().await {
                    Ok(state) => self.send_state(peer, state, None).await.map(|()| false),
                    Err(_) => Err(Close::With(CLOSE_RESTART, "room restarting")),
                }
            }
            Err(RecvError::Closed) => Err(Close::With(CLOSE_RESTART, "room restarting")),
        }
    }

    async fn send_state(
        &mut self,
        peer: &mut Peer,
        state: RoomState,
        id: Option<Value>,
    ) -> Result<(), Close> {
        self.last_v = self.last_v.max(state.v);
        peer.reply(&Reply::State { state, id }).await
    }

    /// After a rematch each seated player keeps their token; this tells them
    /// (privately) the new room and their new colour.
    async fn send_rematch_seat(&mut self, peer: &mut Peer, room: &str) -> Result<(), Close> {
        let (Some(seated), Some(token)) = (&self.attached, &self.token) else {
            return Ok(());
        };
        if seated.seat == Seat::Spectator {
            return Ok(());
        }
        let reply = Reply::Seat {
            room: room.to_string(),
            url: room_url(room),
            seat: seated.seat.swapped(),
            token: token.clone(),
        };
        peer.reply(&reply).await
    }
}

/// The action of a client without `ack`s that a forwarded frame may answer: the version of its
/// last event, and the id to put in that event (`None`: the action had none).
#[derive(Clone, Copy)]
struct Answer<'a> {
    v: u64,
    id: Option<&'a Value>,
}

/// A room frame's text as it is sent to every connection (a reference count, not a copy).
fn shared_text(frame: &Frame) -> Utf8Bytes {
    Utf8Bytes::try_from(frame.text.clone().into_bytes()).expect("a FrameText is made from a String")
}

async fn next_frame(seated: Option<&mut Seated>) -> Result<Arc<Frame>, RecvError> {
    match seated {
        Some(seated) => seated.frames.recv().await,
        None => std::future::pending().await,
    }
}

fn hello_required(id: Option<Value>) -> Reply {
    error_reply(RoomError::NotAttached.into(), id)
}

fn error_reply(error: WireError, id: Option<Value>) -> Reply {
    telemetry::error_answered(error.code);
    Reply::Error {
        code: error.code,
        message: error.message,
        reason: error.reason.map(str::to_string),
        id,
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
    async fn reply(&mut self, reply: &Reply) -> Result<(), Close> {
        self.text(reply.to_json().into()).await
    }

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

    /// Ends the connection: with a close frame, unless the peer is gone already. (Borrowing
    /// the peer: its future would otherwise hold a second copy of the socket.)
    pub(super) async fn close(&mut self, close: Close) {
        if let Close::With(code, reason) = close {
            let frame = CloseFrame {
                code,
                reason: Utf8Bytes::from_static(reason),
            };
            let _ = self.socket.send(Message::Close(Some(frame))).await;
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

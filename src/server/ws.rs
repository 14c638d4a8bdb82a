//! A room's socket, as a [`Handler`] of the socket skeleton (`server/socket.rs`, which runs the
//! loop, the heartbeat and the limits of every frame): it turns client frames into room
//! commands, forwards the room's frames in version order, adds the seat's budget over all its
//! sockets (past it → close 1008), closes a seat's oldest socket past its cap (4000) and a socket
//! that never says hello (1008). A connection that falls behind the broadcast gets a fresh
//! `state` instead of the lost events.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::AppState;
use super::edge::{ClientAddr, Quotas};
use super::error::{AppError, WireError, rate_limited};
use super::identity::Identity;
use super::limits::ConnectionPermit;
use super::seating;
use super::socket::{
    self, Admitted, CLOSE_POLICY, CLOSE_RESTART, Close, Handler, Peer, SILENT_HEARTBEATS,
};
use crate::players::shown;
use crate::players::store::PlayerStore;
use crate::protocol::{
    Action, ClientMessage, ClientName, ErrorCode, FrameText, Reply, Request, Seat,
    State as RoomState, frame_answering, room_url,
};
use crate::room::ring;
use crate::room::{Attached, ConnId, Frame, RoomError, RoomHandle, Rooms, SeatBudget};
use crate::store::bans::BanStore;

mod chat;
use crate::telemetry;

/// The first of the codes applications may use (RFC 6455, 7.4.2).
const CLOSE_SEAT_ELSEWHERE: u16 = 4000;

/// How long a hello, an action or a `sync` may wait for its room before the player is answered
/// `unavailable`: every request is answered within two seconds (docs/RELIABILITY.md), whatever
/// a slow database keeps the room's task waiting for (a room loaded in several round trips, an
/// action queued behind another's commit). The room still does what it was asked: the events
/// follow, and a resend with the same `id` is answered from them (`room/task/resends.rs`). A
/// hello adds at most [`seating::NAMES_WITHIN`] for the players' names.
const REQUEST_DEADLINE: Duration = Duration::from_millis(1500);

/// `GET /ws/rooms/{id}`: 403 for another site's page, 429 past a connection cap, 404 for an
/// unknown room, all before the upgrade.
pub async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
    admitted: Admitted,
) -> Result<Response, AppError> {
    let Admitted { ws, permit, client } = admitted;
    if !state.rooms.exists(&id).await? {
        return Err(RoomError::NotFound.into());
    }
    let connection = Box::new(Connection {
        rooms: state.rooms.clone(),
        room: id,
        token: None,
        player_name: player.as_ref().map(|row| shown::player_ref(row).name),
        player: player.map(|row| row.id),
        moderation: state.moderation.clone(),
        classes: state.classes.clone(),
        challenges: state.challenges.clone(),
        players: state.players.clone(),
        attached: None,
        evicted: CancellationToken::new(),
        last_v: 0,
        seat_told: false,
        acks: true,
        client_name: None,
        quotas: state.quotas.clone(),
        client,
        ping_every: state.ping_every,
        hello_deadline: Instant::now(),
        _permit: permit,
    });
    // No span of its own (one per connection costs ~350 B while it lives): the room's task has
    // one, and the connection's few log lines name the room.
    Ok(socket::open(
        ws,
        &state,
        client,
        connection,
        tracing::Span::none(),
    ))
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
    /// The player this socket's cookie names: a seat bound to another is refused at hello.
    player: Option<String>,
    /// That player's name as shown, for what they say as a spectator.
    player_name: Option<String>,
    players: Arc<dyn PlayerStore>,
    /// Chat time-outs and reports (`ws/chat.rs`).
    moderation: BanStore,
    /// A class game's chat is the teacher's choice (`ws/chat.rs`).
    classes: Arc<crate::class::ClassStore>,
    /// For blocks: two players who blocked one another do not chat (issue 46).
    challenges: crate::lobby::challenges::Challenges,
    attached: Option<Seated>,
    /// Cancelled by the room when this seat's newer sockets push this one out; never cancelled
    /// before hello.
    evicted: CancellationToken,
    /// The last event version sent, so nothing is sent twice.
    last_v: u64,
    /// Whether this player was told their seat after a rematch (see
    /// [`Connection::send_rematch_seat`]).
    seat_told: bool,
    /// Whether a successful action gets an `ack` frame; a client that said `acks: false` in its
    /// hello finds the action's `id` in the action's last event instead.
    acks: bool,
    /// The name the client gave itself in its hello: its actions' ids are remembered under it,
    /// so that one resent after a reconnection is not applied twice.
    client_name: Option<ClientName>,
    /// A rematch opens a room: it takes a token from this address's creation quota.
    quotas: Arc<Quotas>,
    client: ClientAddr,
    /// How often the server pings: a socket that never says hello is closed after as long as
    /// a silent peer.
    ping_every: Duration,
    /// When a socket that has not said hello is closed.
    hello_deadline: Instant,
    /// This connection's place under the caps, freed when it ends.
    _permit: ConnectionPermit,
}

/// What wakes a room's socket besides its client.
enum RoomEvent {
    Frame(Result<Arc<Frame>, RecvError>),
    Evicted,
    NoHello,
}

impl Handler for Connection {
    type Event = RoomEvent;

    async fn on_open(&mut self, _peer: &mut Peer) -> Result<(), Close> {
        // Sockets that never say hello hold no seat; they get as long as a silent peer.
        self.hello_deadline = Instant::now() + self.ping_every * SILENT_HEARTBEATS;
        Ok(())
    }

    async fn next_event(&mut self) -> RoomEvent {
        tokio::select! {
            frame = next_frame(self.attached.as_mut()) => RoomEvent::Frame(frame),
            _ = self.evicted.cancelled() => RoomEvent::Evicted,
            _ = tokio::time::sleep_until(self.hello_deadline), if self.attached.is_none() => {
                RoomEvent::NoHello
            }
        }
    }

    async fn on_event(&mut self, peer: &mut Peer, event: RoomEvent) -> Result<(), Close> {
        match event {
            RoomEvent::Frame(frame) => self.on_frames(peer, frame).await,
            RoomEvent::Evicted => Err(Close::With(
                CLOSE_SEAT_ELSEWHERE,
                "this seat opened too many sockets; the oldest is closed",
            )),
            RoomEvent::NoHello => Err(Close::With(CLOSE_POLICY, "no hello")),
        }
    }

    async fn on_text(&mut self, peer: &mut Peer, text: Utf8Bytes) -> Result<(), Close> {
        match Request::parse(&text) {
            Ok(request) => self.on_request(peer, request).await,
            Err(bad) => {
                let error = WireError::new(bad.code, bad.message);
                peer.reply(&error_reply(error, bad.id)).await
            }
        }
    }

    fn error_frame(&self, error: WireError) -> Utf8Bytes {
        error_reply(error, None).to_json().into()
    }

    fn check_budget(&self) -> Result<(), Close> {
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
}

impl Connection {
    async fn on_request(&mut self, peer: &mut Peer, request: Request) -> Result<(), Close> {
        let id = request.id;
        match request.message {
            ClientMessage::Ping => peer.reply(&Reply::Pong { id }).await,
            ClientMessage::Hello {
                token,
                acks,
                client,
            } => {
                self.acks = acks;
                self.client_name = client;
                self.hello(peer, token, id).await
            }
            ClientMessage::Sync => match &self.attached {
                None => peer.reply(&hello_required(id)).await,
                Some(seated) => match by(deadline(), seated.room.snapshot(seated.conn)).await {
                    Ok(state) => self.send_state(peer, state, id).await,
                    Err(error) => peer.reply(&error_reply(error, id)).await,
                },
            },
            ClientMessage::Act(action) => self.act(peer, action, id).await,
            ClientMessage::Chat(request) => self.chat(peer, request, id).await,
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
        let deadline = deadline();
        let attach = self.rooms.attach(&self.room, token.clone());
        let (room, attached) = match by(deadline, attach).await {
            Ok(ok) => ok,
            Err(error) => return peer.reply(&error_reply(error, id)).await,
        };
        let Attached {
            conn,
            seat,
            mut state,
            frames,
            budget,
            evicted,
        } = attached;
        let player = self.player.as_deref();
        let mine = seating::may_act(self.players.as_ref(), &self.room, seat, player);
        let mine = async { mine.await.map_err(|refused| refused.wire().1) };
        if let Err(refused) = by(deadline, mine).await {
            room.detach(conn);
            return peer.reply(&error_reply(refused, id)).await;
        }
        seating::show_players(self.players.as_ref(), &mut state).await;
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
        let identified = self.player.is_some();
        peer.reply(&Reply::Welcome {
            protocol: crate::protocol::PROTOCOL,
            seat,
            state,
            identified,
        })
        .await?;
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
        if action == Action::Rematch
            && let Err(wait) = self.quotas.create.take(self.client)
        {
            return peer.reply(&error_reply(rate_limited(wait), id)).await;
        }
        let resend = self.client_name.as_ref().zip(id.as_ref());
        let resend = resend.map(|(name, id)| name.resend_key(id));
        match by(deadline(), seated.room.act(seated.conn, action, resend)).await {
            Ok(v) => {
                self.answer(peer, v, id).await?;
                telemetry::action_answered(received);
                Ok(())
            }
            Err(error) => peer.reply(&error_reply(error, id)).await,
        }
    }

    /// Answers a request the room committed up to version `v`: its events are already in our
    /// queue, so they go first and the answer never overtakes what it answers.
    async fn answer(&mut self, peer: &mut Peer, v: u64, id: Option<Value>) -> Result<(), Close> {
        let answer = (!self.acks).then_some(Unacked { v, id: id.as_ref() });
        if self.drain_until(peer, v, answer).await? {
            return Ok(());
        }
        // Also when a fresh state replaced the events (the connection fell behind).
        peer.reply(&Reply::Ack { id, v }).await
    }

    /// Forwards the frames already queued, up to version `v`; whether they answered `answer`
    /// (see [`Connection::on_frame`]).
    async fn drain_until(
        &mut self,
        peer: &mut Peer,
        v: u64,
        answer: Option<Unacked<'_>>,
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
        answer: Option<Unacked<'_>>,
    ) -> Result<bool, Close> {
        match frame {
            Ok(frame) => {
                if let Some(v) = frame.v {
                    if v <= self.last_v {
                        return Ok(false);
                    }
                    self.last_v = v;
                }
                let seat = self.attached.as_ref().map(|seated| seated.seat);
                if seat.is_some_and(|seat| !frame.readers.include(seat)) {
                    if let Some(withheld) = &frame.withheld {
                        peer.text(bytes_of(withheld)).await?;
                    }
                    return Ok(false);
                }
                let answer = answer.filter(|answer| frame.v == Some(answer.v));
                let (text, answered) = match answer {
                    Some(Unacked { id: Some(id), .. }) => {
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
                match seated.room.snapshot(seated.conn).await {
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
        mut state: RoomState,
        id: Option<Value>,
    ) -> Result<(), Close> {
        seating::show_players(self.players.as_ref(), &mut state).await;
        self.last_v = self.last_v.max(state.v);
        let rematch = state.rematch.clone();
        peer.reply(&Reply::State { state, id }).await?;
        // The `rematch` event may be among the frames this state makes stale, which are not
        // sent: the seat it would have told is told now.
        match rematch {
            Some(room) => self.send_rematch_seat(peer, &room).await,
            None => Ok(()),
        }
    }

    /// After a rematch each seated player keeps their token; this tells them
    /// (privately) the new room and their new colour, once: on whichever shows them the rematch
    /// first, the welcome, the `rematch` event or a fresh state.
    async fn send_rematch_seat(&mut self, peer: &mut Peer, room: &str) -> Result<(), Close> {
        let (Some(seated), Some(token)) = (&self.attached, &self.token) else {
            return Ok(());
        };
        if seated.seat == Seat::Spectator || self.seat_told {
            return Ok(());
        }
        self.seat_told = true;
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
struct Unacked<'a> {
    v: u64,
    id: Option<&'a Value>,
}

/// A room frame's text as it is sent to every connection (a reference count, not a copy).
fn shared_text(frame: &Frame) -> Utf8Bytes {
    bytes_of(&frame.text)
}

fn bytes_of(text: &FrameText) -> Utf8Bytes {
    Utf8Bytes::try_from(text.clone().into_bytes()).expect("a FrameText is made from a String")
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

/// When a request received now must be answered.
fn deadline() -> Instant {
    Instant::now() + REQUEST_DEADLINE
}

/// `work`'s outcome, its error as the wire's, or `unavailable` once `deadline` passes.
async fn by<T, E: Into<WireError>>(
    deadline: Instant,
    work: impl Future<Output = Result<T, E>>,
) -> Result<T, WireError> {
    match tokio::time::timeout_at(deadline, work).await {
        Ok(done) => done.map_err(Into::into),
        Err(_) => Err(WireError::new(
            ErrorCode::Unavailable,
            "the server is slow to answer: this may still be done; try again in a moment",
        )),
    }
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

impl Peer {
    async fn reply(&mut self, reply: &Reply) -> Result<(), Close> {
        self.text(reply.to_json().into()).await
    }
}

//! The lobby's endpoints ([`crate::lobby`]): `POST /api/seeks`, `POST /api/seeks/{id}/take`,
//! `DELETE /api/seeks/{id}`, `POST /api/pairing`, and `GET /ws/lobby`.
//!
//! A lobby socket is a [`Handler`] of the socket skeleton (`server/socket.rs`), like a room's:
//! the skeleton runs the loop, the heartbeat and the limits of every frame; the handler sends
//! the list as the socket opens, forwards the lobby's changes (frames serialized once for every
//! socket) and answers the client's requests. It counts toward the same connection caps. A
//! socket that falls behind the changes gets the whole list again.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::ws::Utf8Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::Value;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

use super::AppState;
use super::edge::ClientAddr;
use super::error::body;
use super::error::{AppError, WireError};
use super::identity::Identity;
use super::limits::ConnectionPermit;
use super::seating;
use super::socket::{self, Admitted, CLOSE_RESTART, Close, Handler, Peer};
use crate::lobby::{Hold, Listing, Lobby, Poster};
use crate::players::shown;
use crate::players::store::PlayerRow;
use crate::protocol::{
    CancelSeek, FrameText, LobbyFrame, LobbyMessage, LobbyRequest, Mode, Pair, Paired, PostSeek,
    RoomCreated,
};

/// Seeks one lobby socket may hold: a page holds its own one, a few tabs' worth is plenty.
const MAX_HOLDS: usize = 8;

/// `POST /api/seeks`; the poster's seat is bound to their player, if any.
pub async fn post_seek(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    Identity(player): Identity,
    request: Result<Json<PostSeek>, JsonRejection>,
) -> Result<(StatusCode, Json<RoomCreated>), AppError> {
    let request = body(request)?;
    seating::check_creator(Mode::Online, request.rated, player.as_ref())?;
    let created = state
        .lobby
        .post(
            &client.0.to_string(),
            request.side,
            request.clock,
            request.visitor,
            poster(player.as_ref(), request.rated, request.range),
        )
        .await?;
    let (room, seat) = (&created.room, created.seat);
    seating::seat_creator(&state, room, seat, request.rated, player.as_ref()).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// `POST /api/seeks/{id}/take`; a rated seek wants another player than its poster.
pub async fn take_seek(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
) -> Result<Json<RoomCreated>, AppError> {
    seating::check_joiner(&state, &id, player.as_ref()).await?;
    let taken = state.lobby.take(&id).await?;
    seating::bind(&state, &id, taken.seat, player.as_ref()).await?;
    Ok(Json(taken))
}

pub async fn cancel_seek(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Result<Json<CancelSeek>, JsonRejection>,
) -> Result<StatusCode, AppError> {
    let request = body(request)?;
    state.lobby.cancel(&id, &request.token).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/pairing`; the seat is bound to the asker's player, if any. Rated pairs only with
/// rated (and needs a player), never with one's own seek; see [`crate::lobby`] for the rest.
pub async fn pair(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    Identity(player): Identity,
    request: Result<Json<Pair>, JsonRejection>,
) -> Result<Json<Paired>, AppError> {
    let request = body(request)?;
    seating::check_creator(Mode::Online, request.rated, player.as_ref())?;
    let paired = state
        .lobby
        .pair(
            &client.0.to_string(),
            request.clock,
            request.visitor,
            poster(player.as_ref(), request.rated, request.range),
        )
        .await?;
    let (room, seat) = (&paired.seat.room, paired.seat.seat);
    if paired.paired {
        seating::bind(&state, room, seat, player.as_ref()).await?;
    } else {
        seating::seat_creator(&state, room, seat, request.rated, player.as_ref()).await?;
    }
    Ok(Json(paired))
}

/// Who posts or asks, as the lobby matches them: their player and rating, if any.
fn poster(player: Option<&PlayerRow>, rated: bool, range: Option<[i64; 2]>) -> Poster {
    Poster {
        player: player.map(|row| row.id.clone()),
        rated,
        rating: player.map(|row| shown::player_ref(row).rating),
        range,
    }
}

/// `GET /ws/lobby`: 403 for another site's page, 429 past a connection cap, before the upgrade.
/// A socket with a player cookie also hears of that player's challenges (issue 46).
pub async fn upgrade(
    State(state): State<AppState>,
    Identity(player): Identity,
    admitted: Admitted,
) -> Response {
    let Admitted { ws, permit, client } = admitted;
    let Listing { first, changes } = state.lobby.join_list();
    let challenges = player.map(|row| state.challenges.subscribe(&row.id));
    let connection = Box::new(LobbySocket {
        lobby: state.lobby.clone(),
        first: Some(first),
        changes,
        challenges,
        holds: Vec::new(),
        _permit: permit,
    });
    socket::open(ws, &state, client, connection, tracing::info_span!("lobby"))
}

struct LobbySocket {
    lobby: Lobby,
    /// The list as the socket opened, sent first.
    first: Option<LobbyFrame>,
    changes: broadcast::Receiver<FrameText>,
    /// The `challenge` frames of the page's player, if it has one.
    challenges: Option<broadcast::Receiver<FrameText>>,
    /// The seeks this socket keeps listed (its page's own).
    holds: Vec<Hold>,
    /// This connection's place under the caps, freed when it ends.
    _permit: ConnectionPermit,
}

/// What a lobby socket waits for: the list's changes, or its player's challenges.
enum Heard {
    Lobby(Result<FrameText, RecvError>),
    Challenge(Result<FrameText, RecvError>),
}

impl Handler for LobbySocket {
    type Event = Heard;

    async fn on_open(&mut self, peer: &mut Peer) -> Result<(), Close> {
        match self.first.take() {
            Some(first) => send(peer, &first).await,
            None => Ok(()),
        }
    }

    async fn next_event(&mut self) -> Self::Event {
        let challenge = async {
            match &mut self.challenges {
                Some(challenges) => challenges.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            change = self.changes.recv() => Heard::Lobby(change),
            challenge = challenge => Heard::Challenge(challenge),
        }
    }

    /// Forwards a change and the others already behind it; after falling behind, the whole
    /// list again (the changes it missed are in it).
    async fn on_event(&mut self, peer: &mut Peer, heard: Heard) -> Result<(), Close> {
        let mut change = match heard {
            Heard::Lobby(change) => change,
            Heard::Challenge(Ok(text)) => return peer.text(utf8(text)).await,
            // Fell behind: the page reads `GET /api/challenges` when it needs the list.
            Heard::Challenge(Err(RecvError::Lagged(_))) => return Ok(()),
            Heard::Challenge(Err(RecvError::Closed)) => {
                self.challenges = None;
                return Ok(());
            }
        };
        loop {
            match change {
                Ok(text) => peer.text(utf8(text)).await?,
                Err(RecvError::Lagged(_)) => {
                    let Listing { first, changes } = self.lobby.join_list();
                    self.changes = changes;
                    return send(peer, &first).await;
                }
                Err(RecvError::Closed) => return Err(Close::With(CLOSE_RESTART, "lobby closed")),
            }
            change = match self.changes.try_recv() {
                Ok(text) => Ok(text),
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Closed) => Err(RecvError::Closed),
                Err(TryRecvError::Empty) => return Ok(()),
            };
        }
    }

    async fn on_text(&mut self, peer: &mut Peer, text: Utf8Bytes) -> Result<(), Close> {
        let request = match LobbyRequest::parse(&text) {
            Ok(request) => request,
            Err(bad) => {
                let error = WireError::new(bad.code, bad.message);
                return send(peer, &error_frame(error, bad.id)).await;
            }
        };
        let id = request.id;
        let answer = match request.message {
            LobbyMessage::Ping => LobbyFrame::Pong { id },
            LobbyMessage::More { at, room } => LobbyFrame::Seeks {
                page: self.lobby.page_before(at, room),
                id,
            },
            LobbyMessage::Hold { room, token } => self.hold(room, &token, id).await,
        };
        send(peer, &answer).await
    }

    fn error_frame(&self, error: WireError) -> Utf8Bytes {
        error_frame(error, None).to_json().into()
    }
}

impl LobbySocket {
    async fn hold(&mut self, room: String, token: &str, id: Option<Value>) -> LobbyFrame {
        if self.holds.len() >= MAX_HOLDS {
            let error = WireError::new(
                crate::protocol::ErrorCode::TooManySeeks,
                format!("one lobby socket holds at most {MAX_HOLDS} seeks"),
            );
            return error_frame(error, id);
        }
        match self.lobby.hold(&room, token).await {
            Ok(hold) => {
                self.holds.push(hold);
                LobbyFrame::Held { room, id }
            }
            Err(error) => error_frame(error.into(), id),
        }
    }
}

async fn send(peer: &mut Peer, frame: &LobbyFrame) -> Result<(), Close> {
    peer.text(frame.to_json().into()).await
}

fn utf8(text: FrameText) -> Utf8Bytes {
    Utf8Bytes::try_from(text.into_bytes()).expect("a FrameText is made from a String")
}

fn error_frame(error: WireError, id: Option<Value>) -> LobbyFrame {
    crate::telemetry::error_answered(error.code);
    LobbyFrame::Error {
        code: error.code,
        message: error.message,
        id,
    }
}

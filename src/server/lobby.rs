//! The lobby's endpoints ([`crate::lobby`]): `POST /api/seeks`, `POST /api/seeks/{id}/take`,
//! `DELETE /api/seeks/{id}`, `POST /api/pairing`, and `GET /ws/lobby`.
//!
//! A lobby socket is one task with one `select!` loop, like a room's (`ws.rs`, whose [`Peer`]
//! it shares): the client's frames, the lobby's changes (frames serialized once for every
//! socket), shutdown and a heartbeat, with one flush per step. It counts toward the same
//! connection caps. A socket that falls behind the changes gets the whole list again.

use std::time::Duration;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::ws::{Message, Utf8Bytes, WebSocketUpgrade};
use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::Value;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::AppState;
use super::edge::ClientAddr;
use super::error::{AppError, WireError};
use super::http::body;
use super::ws::{
    CLOSE_POLICY, CLOSE_RESTART, CLOSE_TOO_BIG, Close, Peer, SILENT_HEARTBEATS, with_socket_limits,
};
use crate::lobby::{Hold, Joined, Lobby};
use crate::protocol::{
    CancelSeek, FrameText, LobbyFrame, LobbyMessage, LobbyRequest, MAX_FRAME_BYTES, Pair, Paired,
    PostSeek, RoomCreated,
};
use crate::room::RateLimit;

/// Seeks one lobby socket may hold: a page holds its own one, a few tabs' worth is plenty.
const MAX_HOLDS: usize = 8;

pub async fn post_seek(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    request: Result<Json<PostSeek>, JsonRejection>,
) -> Result<(StatusCode, Json<RoomCreated>), AppError> {
    let request = body(request)?;
    let created = state
        .lobby
        .post(
            &client.0.to_string(),
            request.side,
            request.clock,
            request.visitor,
        )
        .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

pub async fn take_seek(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RoomCreated>, AppError> {
    Ok(Json(state.lobby.take(&id).await?))
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

pub async fn pair(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    request: Result<Json<Pair>, JsonRejection>,
) -> Result<Json<Paired>, AppError> {
    let request = body(request)?;
    let paired = state
        .lobby
        .pair(&client.0.to_string(), request.clock, request.visitor)
        .await?;
    Ok(Json(paired))
}

/// `GET /ws/lobby`: 403 for another site's page, 429 past a connection cap, before the upgrade.
pub async fn upgrade(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Result<Response, AppError> {
    let permit = state.gate.admit(&headers, client)?;
    let connection = LobbySocket {
        lobby: state.lobby.clone(),
        holds: Vec::new(),
        rate: RateLimit::new(state.max_messages_per_second),
        ping_every: state.ping_every,
    };
    let shutdown = state.shutdown.clone();
    let send_timeout = state.gate.send_timeout;
    let tracker = state.tracker.clone();
    Ok(
        with_socket_limits(ws, &state.gate).on_upgrade(move |socket| {
            let peer = Peer {
                socket,
                send_timeout,
            };
            tracker.track_future(
                async move {
                    connection.run(peer, shutdown).await;
                    drop(permit);
                }
                .instrument(tracing::info_span!("lobby")),
            )
        }),
    )
}

struct LobbySocket {
    lobby: Lobby,
    /// The seeks this socket keeps listed (its page's own).
    holds: Vec<Hold>,
    rate: RateLimit,
    ping_every: Duration,
}

impl LobbySocket {
    async fn run(mut self, mut peer: Peer, shutdown: CancellationToken) {
        let mut heartbeat =
            tokio::time::interval_at(Instant::now() + self.ping_every, self.ping_every);
        heartbeat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_heard = Instant::now();
        let Joined { first, mut changes } = self.lobby.join_list();
        let mut step = send(&mut peer, &first).await;
        let close = loop {
            if let Err(close) = step.and(peer.flush().await) {
                break close;
            }
            step = tokio::select! {
                _ = shutdown.cancelled() => Err(Close::With(CLOSE_RESTART, "server restarting")),
                message = peer.socket.recv() => {
                    last_heard = Instant::now();
                    Box::pin(self.on_message(&mut peer, message)).await
                }
                change = changes.recv() => self.on_changes(&mut peer, &mut changes, change).await,
                _ = heartbeat.tick() => {
                    if last_heard.elapsed() > self.ping_every * SILENT_HEARTBEATS {
                        Err(Close::Gone)
                    } else {
                        peer.queue(Message::Ping(Default::default())).await
                    }
                }
            };
        };
        peer.close(close).await;
    }

    /// Forwards a change and the others already behind it; after falling behind, the whole
    /// list again (the changes it missed are in it).
    async fn on_changes(
        &mut self,
        peer: &mut Peer,
        changes: &mut tokio::sync::broadcast::Receiver<FrameText>,
        mut change: Result<FrameText, RecvError>,
    ) -> Result<(), Close> {
        loop {
            match change {
                Ok(text) => peer.text(utf8(text)).await?,
                Err(RecvError::Lagged(_)) => {
                    let Joined {
                        first,
                        changes: fresh,
                    } = self.lobby.join_list();
                    *changes = fresh;
                    return send(peer, &first).await;
                }
                Err(RecvError::Closed) => return Err(Close::With(CLOSE_RESTART, "lobby closed")),
            }
            change = match changes.try_recv() {
                Ok(text) => Ok(text),
                Err(TryRecvError::Lagged(n)) => Err(RecvError::Lagged(n)),
                Err(TryRecvError::Closed) => Err(RecvError::Closed),
                Err(TryRecvError::Empty) => return Ok(()),
            };
        }
    }

    async fn on_message(
        &mut self,
        peer: &mut Peer,
        message: Option<Result<Message, axum::Error>>,
    ) -> Result<(), Close> {
        let text = match message {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return Err(Close::Gone),
            Some(Ok(Message::Ping(bytes) | Message::Pong(bytes) | Message::Binary(bytes))) => {
                return self.check_limits(bytes.len());
            }
            Some(Ok(Message::Text(text))) => text,
        };
        self.check_limits(text.len())?;
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

    fn check_limits(&mut self, len: usize) -> Result<(), Close> {
        if len > MAX_FRAME_BYTES {
            return Err(Close::With(CLOSE_TOO_BIG, "frame larger than 4 KiB"));
        }
        if !self.rate.allow() {
            return Err(Close::With(CLOSE_POLICY, "too many messages per second"));
        }
        Ok(())
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

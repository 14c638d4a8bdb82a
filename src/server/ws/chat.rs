//! A room socket's chat (issue 33): what only the server knows is checked here before the room
//! judges the rest — whether an operator timed the sender out, and whether the sender is an
//! identified player (both seats' players, for free text between them); a report is filed in
//! the operators' tables with the room's last messages.

use serde_json::Value;

use super::{Connection, error_reply, hello_required};
use crate::protocol::chat::ChatRequest;
use crate::protocol::{ErrorCode, Seat};
use crate::room::{ChatAnswer, ChatCommand, now_ms};
use crate::server::error::WireError;
use crate::server::socket::{Close, Peer};
use crate::store::bans::moderation::Report;

impl Connection {
    pub(super) async fn chat(
        &mut self,
        peer: &mut Peer,
        request: ChatRequest,
        id: Option<Value>,
    ) -> Result<(), Close> {
        let Some(seated) = &self.attached else {
            return peer.reply(&hello_required(id)).await;
        };
        let (room, conn, seat) = (seated.room.clone(), seated.conn, seated.seat);
        let reason = match &request {
            ChatRequest::Report { .. } if self.reported => {
                let error = WireError::new(ErrorCode::BadRequest, "this socket already reported");
                return peer.reply(&error_reply(error, id)).await;
            }
            ChatRequest::Report { reason } => Some(reason.clone()),
            _ => None,
        };
        let identified = match self.check_sender(&request, seat).await {
            Ok(identified) => identified,
            Err(error) => return peer.reply(&error_reply(error, id)).await,
        };
        let command = ChatCommand {
            request,
            player: self.player.clone().zip(self.player_name.clone()),
            identified,
        };
        match room.chat(conn, command).await {
            Ok(ChatAnswer::Logged(v)) => self.answer(peer, v, id).await,
            Ok(ChatAnswer::Report { by, lines }) => {
                let report = Report {
                    room: self.room.clone(),
                    at: now_ms(),
                    reporter: by,
                    player: self.player.clone(),
                    reason: reason.unwrap_or_default(),
                    lines: serde_json::to_string(&lines).expect("lines serialize"),
                };
                let error = match self.moderation.report(&report).await {
                    Ok(true) => {
                        self.reported = true;
                        let v = self.last_v;
                        return peer.reply(&crate::protocol::Reply::Ack { id, v }).await;
                    }
                    Ok(false) => WireError::new(
                        ErrorCode::ChatFull,
                        "this room has as many reports as it keeps: the operators have them",
                    ),
                    Err(error) => WireError::internal(&error),
                };
                peer.reply(&error_reply(error, id)).await
            }
            Err(error) => peer.reply(&error_reply(error.into(), id)).await,
        }
    }

    /// For a message: refused while an operator's time-out runs; otherwise whether the sender
    /// counts as identified (see [`crate::room::Speaker::identified`]), asked only for text.
    async fn check_sender(&self, request: &ChatRequest, seat: Seat) -> Result<bool, WireError> {
        let ChatRequest::Say(say) = request else {
            return Ok(false);
        };
        let Some(player) = self.player.as_deref() else {
            return Ok(false);
        };
        let until = self
            .moderation
            .timed_out_until(player, now_ms())
            .await
            .map_err(|error| WireError::internal(&error))?;
        if let Some(until) = until {
            let message = format!("an operator timed you out of chat until {until} (unix ms)");
            return Err(WireError::new(ErrorCode::ChatTimedOut, message));
        }
        if !matches!(say, crate::protocol::chat::Say::Text(_)) || seat == Seat::Spectator {
            return Ok(true);
        }
        let seated = self
            .players
            .room_players(&self.room)
            .await
            .map_err(WireError::from)?;
        Ok(seated.is_some_and(|seated| {
            let mine = if seat == Seat::Black {
                &seated.black
            } else {
                &seated.white
            };
            seated.black.is_some() && seated.white.is_some() && mine.as_deref() == Some(player)
        }))
    }
}

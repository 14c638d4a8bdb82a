//! A room socket's chat (issue 33): what only the server knows is checked here before the room
//! judges the rest — whether an operator timed the sender out, and whether the sender is an
//! identified player (both seats' players, for free text between them); a report is filed in
//! the operators' tables with the room's last messages.
//!
//! Issue 44: a time-out binds the seat as well as the cookie — a player's message is refused
//! while either the player bound to the seat or the one the socket's cookie names is timed out,
//! so a seat token on a socket without the cookie does not escape it. A report is filed once per
//! reporter (a side, a spectator's identity) and room, not once per socket.
//!
//! Issue 46: the two players of a game do not chat when either blocked the other.

use serde_json::Value;

use super::{Connection, error_reply, hello_required};
use crate::protocol::chat::{ChatRequest, Say};
use crate::protocol::{ErrorCode, Seat};
use crate::room::{ChatAnswer, ChatCommand, now_ms};
use crate::server::error::WireError;
use crate::server::socket::{Close, Peer};
use crate::store::bans::moderation::{Filed, Report};

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
            ChatRequest::Report { reason } => Some(reason.clone()),
            _ => None,
        };
        if let Err(error) = self.check_class_chat(&request).await {
            return peer.reply(&error_reply(error, id)).await;
        }
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
                    Ok(Filed::Yes) => {
                        let v = self.last_v;
                        return peer.reply(&crate::protocol::Reply::Ack { id, v }).await;
                    }
                    Ok(Filed::Again) => {
                        WireError::new(ErrorCode::BadRequest, "you already reported this room")
                    }
                    Ok(Filed::Full) => WireError::new(
                        ErrorCode::ChatFull,
                        "this room has as many spectators' reports as it keeps: the operators \
                         have them",
                    ),
                    Err(error) => WireError::internal(&error),
                };
                peer.reply(&error_reply(error, id)).await
            }
            Err(error) => peer.reply(&error_reply(error.into(), id)).await,
        }
    }

    /// For a message: refused while an operator's time-out of the seat's player or the cookie's
    /// runs; otherwise whether the sender counts as identified (see
    /// [`crate::room::Speaker::identified`]).
    async fn check_sender(&self, request: &ChatRequest, seat: Seat) -> Result<bool, WireError> {
        let ChatRequest::Say(say) = request else {
            return Ok(false);
        };
        let seated = match seat {
            Seat::Black | Seat::White => self
                .players
                .room_players(&self.room)
                .await
                .map_err(WireError::from)?,
            Seat::Spectator | Seat::Both => None,
        };
        let holder = seated.as_ref().and_then(|seated| match seat {
            Seat::Black => seated.black.as_deref(),
            _ => seated.white.as_deref(),
        });
        for player in holder.into_iter().chain(self.player.as_deref()) {
            self.check_time_out(player).await?;
        }
        if let Some(seated) = &seated
            && let (Some(black), Some(white)) = (&seated.black, &seated.white)
            && self
                .challenges
                .social()
                .blocked_either(black, white)
                .await
                .map_err(WireError::from)?
        {
            return Err(WireError::new(
                ErrorCode::Blocked,
                "one of you blocked the other: no chat between you",
            ));
        }
        let Some(player) = self.player.as_deref() else {
            return Ok(false);
        };
        if !matches!(say, Say::Text(_)) || seat == Seat::Spectator {
            return Ok(true);
        }
        Ok(seated.as_ref().is_some_and(|seated| {
            seated.black.is_some() && seated.white.is_some() && holder == Some(player)
        }))
    }

    /// In a class game (issue 50) the teacher chose the chat: `none` refuses every message,
    /// `presets` free text (which pupils, not being players, could not send anyway; this refuses
    /// it from a spectator too). A report is always taken.
    async fn check_class_chat(&self, request: &ChatRequest) -> Result<(), WireError> {
        let ChatRequest::Say(say) = request else {
            return Ok(());
        };
        let class = self.classes.class_chat_of_room(&self.room).await;
        let chat = class.map_err(|error| WireError::internal(&error))?;
        let refused = match chat.as_deref() {
            None => false,
            Some("presets") => matches!(say, Say::Text(_)),
            Some(_) => true,
        };
        match refused {
            true => Err(WireError::new(
                ErrorCode::ChatNotAllowed,
                "the teacher chose this class's chat: presets only, or none",
            )),
            false => Ok(()),
        }
    }

    /// `chat_timed_out` while an operator's time-out of `player` runs.
    async fn check_time_out(&self, player: &str) -> Result<(), WireError> {
        let until = self
            .moderation
            .timed_out_until(player, now_ms())
            .await
            .map_err(|error| WireError::internal(&error))?;
        match until {
            Some(until) => Err(WireError::new(
                ErrorCode::ChatTimedOut,
                format!("an operator timed you out of chat until {until} (unix ms)"),
            )),
            None => Ok(()),
        }
    }
}

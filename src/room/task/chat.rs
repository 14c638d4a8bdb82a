//! The room's chat (issue 33): a message, a player's choices or a mute is judged by the game
//! (`game/chat.rs`) and committed like any action, so it is in the log before anyone reads it;
//! a report answers the room's last messages for the server to keep for the operators.

use super::{ConnId, RoomTask};
use crate::protocol::chat::{ChatLine, ChatRequest};
use crate::protocol::{Seat, State, Version};
use crate::room::error::RoomError;
use crate::room::game::{Context, Decision, Game, Speaker, side_name};
use crate::room::now_ms;

/// Messages a report keeps.
pub const REPORTED_LINES: usize = 20;

/// Who reports, for a spectator without an identity (who may report but not speak).
pub const ANONYMOUS_SPECTATOR: &str = "spectator";

/// A chat request with what the server knows of its sender.
#[derive(Debug)]
pub struct ChatCommand {
    pub request: ChatRequest,
    /// The sender's player id and shown name, if their cookie names one.
    pub player: Option<(String, String)>,
    /// See [`Speaker::identified`].
    pub identified: bool,
}

/// What the room answers a chat request.
#[derive(Debug)]
pub enum ChatAnswer {
    /// Logged (or nothing to log): the room's version after it.
    Logged(Version),
    /// A report: who reports (`black`, `white`, a spectator's player id or
    /// [`ANONYMOUS_SPECTATOR`]) and the room's last messages.
    Report { by: String, lines: Vec<ChatLine> },
}

impl RoomTask {
    pub(super) async fn chat(
        &mut self,
        conn: ConnId,
        command: ChatCommand,
    ) -> Result<ChatAnswer, RoomError> {
        let seat = self.conns.get(&conn).ok_or(RoomError::NotAttached)?.seat;
        let speaker = speaker(seat, &command);
        let v = match command.request {
            ChatRequest::Say(say) => {
                self.commit_chat(|game, ctx| Ok(game.decide_say(&speaker, &say, ctx.now)?))
                    .await?
            }
            ChatRequest::Settings {
                free_text,
                spectators,
            } => {
                self.commit_chat(|game, ctx| {
                    Ok(game.decide_chat_settings(seat, free_text, spectators, ctx.now)?)
                })
                .await?
            }
            ChatRequest::Mute { who } => {
                self.commit_chat(|game, ctx| Ok(game.decide_mute(seat, &who, ctx.now)?))
                    .await?
            }
            ChatRequest::Report { .. } => {
                return Ok(ChatAnswer::Report {
                    by: speaker.by,
                    lines: self.game.last_lines(REPORTED_LINES),
                });
            }
        };
        Ok(ChatAnswer::Logged(v))
    }

    /// Commits what `decide` says; a refusal is judged again after reading the log if another
    /// instance moved it on (the other player's opt-in may have been logged there).
    async fn commit_chat(
        &mut self,
        decide: impl Fn(&Game, &Context) -> Result<Decision, RoomError>,
    ) -> Result<Version, RoomError> {
        match self.commit_with_retry(&decide).await {
            Err(RoomError::Refused(refusal)) => {
                let before = self.game.version();
                self.catch_up().await?;
                if self.game.version() == before {
                    return Err(refusal.into());
                }
                self.commit_with_retry(decide).await
            }
            committed => committed,
        }
    }

    /// The state as connection `conn` may see it (a spectator's if it left).
    pub(super) fn state_for(&self, conn: ConnId) -> State {
        let seat = self.conns.get(&conn).map_or(Seat::Spectator, |c| c.seat);
        self.game.state_for(seat, self.spectators(), now_ms())
    }
}

/// Who speaks: a side by its name; a spectator by their player id (public: never a secret), which
/// outlives the socket. An anonymous spectator may only report, as [`ANONYMOUS_SPECTATOR`].
fn speaker(seat: Seat, command: &ChatCommand) -> Speaker {
    let by = match (seat, &command.player) {
        (Seat::Black, _) => side_name(crate::engine::Side::Black).to_string(),
        (Seat::White, _) => side_name(crate::engine::Side::White).to_string(),
        (_, Some((id, _))) => id.clone(),
        (_, None) => ANONYMOUS_SPECTATOR.to_string(),
    };
    Speaker {
        seat,
        by,
        name: command.player.as_ref().map(|(_, name)| name.clone()),
        identified: command.identified,
    }
}

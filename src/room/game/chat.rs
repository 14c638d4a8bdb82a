//! The room's chat as the game keeps it (issue 33): the last messages, each player's choices
//! and mutes, all folded from the log like everything else, so every instance and every replay
//! judges a message alike. Deciding a message checks who may say what (presets for everyone,
//! free text only between identified players who both turned it on; spectators only with an
//! identity), the sender's mutes and floods, and the room's bounds; reading checks who may see
//! which channel. Issue 44: each player's chat events (messages, choices, mutes) have a budget of
//! their own and the spectators theirs, so neither a crowd nor the other player can use up a
//! player's; choices are paced like messages; a game the operator ended has no chat.

use std::collections::VecDeque;

use super::{Decision, Game, Next, Stage, index};
use crate::engine::Side;
use crate::protocol::chat::{Channel, ChatLine, ChatSettings, ChatState, Say};
use crate::protocol::{EndReason, Event, Mode, Seat, UnixMs};
use crate::room::bounds::{
    CHAT_SHOWN, CHATTER_UNTIL, FLOOD_MESSAGES, FLOOD_WINDOW_MS, MAX_MUTES, MAX_PLAYER_CHAT_EVENTS,
    MAX_SPECTATOR_CHAT_EVENTS, SPECTATORS_CHAT_UNTIL,
};
use crate::room::error::Refusal;

/// What the game keeps of its chat.
#[derive(Clone, Debug, Default)]
pub(super) struct Chat {
    /// The last [`CHAT_SHOWN`] messages, oldest first.
    lines: VecDeque<ChatLine>,
    settings: [ChatSettings; 2],
    /// Whom each side (black, white) muted.
    muted: [Vec<String>; 2],
    /// Each side's chat events in the log (its messages, choices and mutes): bounded by
    /// [`MAX_PLAYER_CHAT_EVENTS`].
    logged: [u32; 2],
    /// The spectators' messages in the log: bounded by [`MAX_SPECTATOR_CHAT_EVENTS`].
    spectators_logged: u32,
    /// When each side last changed its choices, the newest [`FLOOD_MESSAGES`]: paced like
    /// messages.
    set_at: [VecDeque<UnixMs>; 2],
}

/// Who speaks, as the room and the server know them.
#[derive(Clone, Debug)]
pub struct Speaker {
    pub seat: Seat,
    /// `black`, `white`, or the spectator's player id.
    pub by: String,
    /// An identified spectator's name.
    pub name: Option<String>,
    /// A player: both seats are held by identified players and this one by the sender. A
    /// spectator: the sender is an identified player.
    pub identified: bool,
}

/// Which seats read a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Readers {
    pub black: bool,
    pub white: bool,
    pub spectators: bool,
}

impl Readers {
    pub const ALL: Readers = Readers {
        black: true,
        white: true,
        spectators: true,
    };

    pub fn include(self, seat: Seat) -> bool {
        match seat {
            Seat::Black => self.black,
            Seat::White => self.white,
            Seat::Both => self.black || self.white,
            Seat::Spectator => self.spectators,
        }
    }
}

/// A seat's side, for the chat's choices and mutes: players only.
fn side_of(seat: Seat) -> Result<Side, Refusal> {
    match seat {
        Seat::Black => Ok(Side::Black),
        Seat::White => Ok(Side::White),
        Seat::Spectator => Err(Refusal::ChatPlayersOnly),
        Seat::Both => Err(Refusal::ChatNotOnline),
    }
}

/// Whose chat budget an event takes from.
#[derive(Clone, Copy)]
enum Budget {
    Player(Side),
    Spectators,
}

impl Budget {
    /// A speaker's: their side's, or the spectators'.
    fn of_seat(seat: Seat) -> Budget {
        side_of(seat).map_or(Budget::Spectators, Budget::Player)
    }

    /// A logged chat event's; `None` for an operator's hide, which takes from nobody's.
    fn of_event(event: &Event) -> Option<Budget> {
        match event {
            Event::Said {
                channel: Channel::Spectators,
                ..
            } => Some(Budget::Spectators),
            Event::Said { by, .. } => [Side::Black, Side::White]
                .into_iter()
                .find(|side| side_name(*side) == by)
                .map(Budget::Player),
            Event::ChatSet { side, .. } | Event::Muted { side, .. } => Some(Budget::Player(*side)),
            _ => None,
        }
    }
}

/// A message without its words, for those who may not read it (see [`Game::readers`]).
pub fn withheld(event: &Event) -> Option<Event> {
    let Event::Said { by, channel, .. } = event else {
        return None;
    };
    Some(Event::Said {
        by: by.clone(),
        channel: *channel,
        name: None,
        preset: None,
        text: None,
        withheld: true,
    })
}

/// A side's name in the chat.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Black => "black",
        Side::White => "white",
    }
}

impl Game {
    /// A message by `speaker` at `now`.
    pub fn decide_say(
        &self,
        speaker: &Speaker,
        say: &Say,
        now: UnixMs,
    ) -> Result<Decision, Refusal> {
        self.check_chat_room()?;
        self.check_budget(Budget::of_seat(speaker.seat))?;
        let channel = match speaker.seat {
            // A spectator speaks as their player, whom a mute and the flood limits follow
            // across reconnects; an anonymous one would be a stranger on every socket.
            Seat::Spectator if !speaker.identified => return Err(Refusal::SpectatorNeedsPlayer),
            Seat::Spectator => Channel::Spectators,
            Seat::Both => return Err(Refusal::ChatNotOnline),
            Seat::Black | Seat::White => Channel::Players,
        };
        if let Say::Text(_) = say {
            self.check_free_text(speaker)?;
        }
        if let Ok(side) = side_of(speaker.seat)
            && self.chat.muted[index(side.other())].contains(&speaker.by)
        {
            return Err(Refusal::ChatMuted);
        }
        self.check_flood(&speaker.by, say, now)?;
        let (preset, text) = match say {
            Say::Preset(id) => (Some(id.to_string()), None),
            Say::Text(text) => (None, Some(text.clone())),
        };
        let mut next = Next::from(self, now);
        next.push(Event::Said {
            by: speaker.by.clone(),
            channel,
            name: speaker
                .name
                .clone()
                .filter(|_| channel == Channel::Spectators),
            preset,
            text,
            withheld: false,
        });
        Ok(next.done())
    }

    /// A player's new choices (a field left `None` keeps its value); nothing is logged when
    /// nothing changes.
    pub fn decide_chat_settings(
        &self,
        seat: Seat,
        free_text: Option<bool>,
        spectators: Option<bool>,
        now: UnixMs,
    ) -> Result<Decision, Refusal> {
        self.check_chat_room()?;
        let side = side_of(seat)?;
        self.check_budget(Budget::Player(side))?;
        let old = self.chat.settings[index(side)];
        let new = ChatSettings {
            free_text: free_text.unwrap_or(old.free_text),
            spectators: spectators.unwrap_or(old.spectators),
        };
        let mut next = Next::from(self, now);
        if new != old {
            let set_at = &self.chat.set_at[index(side)];
            let recent = set_at.iter().filter(|at| **at > now - FLOOD_WINDOW_MS);
            if recent.count() >= FLOOD_MESSAGES {
                return Err(Refusal::ChatFlood);
            }
            next.push(Event::ChatSet {
                side,
                free_text: new.free_text,
                spectators: new.spectators,
            });
        }
        Ok(next.done())
    }

    /// A player mutes the other side or a spectator who spoke here, for the rest of the game.
    pub fn decide_mute(&self, seat: Seat, who: &str, now: UnixMs) -> Result<Decision, Refusal> {
        self.check_chat_room()?;
        let side = side_of(seat)?;
        self.check_budget(Budget::Player(side))?;
        let spoke = self.chat.lines.iter().any(|line| line.by == who);
        if who == side_name(side) || !(who == side_name(side.other()) || spoke) {
            return Err(Refusal::CannotMute(who.to_string()));
        }
        let muted = &self.chat.muted[index(side)];
        let mut next = Next::from(self, now);
        if muted.iter().any(|m| m == who) {
            return Ok(next.done());
        }
        if muted.len() >= MAX_MUTES {
            return Err(Refusal::ChatFull);
        }
        next.push(Event::Muted {
            side,
            who: who.to_string(),
        });
        Ok(next.done())
    }

    /// Online rooms only, not once an operator ended the game, while the log has room.
    fn check_chat_room(&self) -> Result<(), Refusal> {
        if self.room.mode != Mode::Online {
            return Err(Refusal::ChatNotOnline);
        }
        if matches!(self.stage, Stage::Over(_, EndReason::Operator)) {
            return Err(Refusal::ChatClosed);
        }
        if self.v >= CHATTER_UNTIL {
            return Err(Refusal::ChatFull);
        }
        Ok(())
    }

    /// Whether `budget` has room for one more chat event. The spectators' also stops at
    /// [`SPECTATORS_CHAT_UNTIL`], so that the last events before [`CHATTER_UNTIL`] are never
    /// theirs.
    fn check_budget(&self, budget: Budget) -> Result<(), Refusal> {
        let full = match budget {
            Budget::Player(side) => self.chat.logged[index(side)] >= MAX_PLAYER_CHAT_EVENTS,
            Budget::Spectators => {
                self.chat.spectators_logged >= MAX_SPECTATOR_CHAT_EVENTS
                    || self.v >= SPECTATORS_CHAT_UNTIL
            }
        };
        if full {
            return Err(Refusal::ChatFull);
        }
        Ok(())
    }

    fn check_free_text(&self, speaker: &Speaker) -> Result<(), Refusal> {
        if !speaker.identified {
            return Err(Refusal::FreeTextNeedsPlayers);
        }
        let both_on = self.chat.settings.iter().all(|s| s.free_text);
        if speaker.seat != Seat::Spectator && !both_on {
            return Err(Refusal::FreeTextOff);
        }
        Ok(())
    }

    /// A repeat of either of the sender's last two messages, or one more than
    /// [`FLOOD_MESSAGES`] within [`FLOOD_WINDOW_MS`].
    fn check_flood(&self, by: &str, say: &Say, now: UnixMs) -> Result<(), Refusal> {
        let mine = || {
            self.chat
                .lines
                .iter()
                .rev()
                .filter(move |line| line.by == by)
        };
        let repeats = mine().take(2).any(|line| match say {
            Say::Preset(id) => line.preset.as_deref() == Some(id),
            Say::Text(text) => line.text.as_deref() == Some(text.as_str()),
        });
        if repeats {
            return Err(Refusal::ChatRepeat);
        }
        let recent = mine()
            .take_while(|line| line.at > now - FLOOD_WINDOW_MS)
            .count();
        if recent >= FLOOD_MESSAGES {
            return Err(Refusal::ChatFlood);
        }
        Ok(())
    }

    /// The chat as `seat` may read it.
    pub fn chat_state(&self, seat: Seat) -> ChatState {
        let muted = side_of(seat)
            .map(|side| self.chat.muted[index(side)].clone())
            .unwrap_or_default();
        ChatState {
            lines: self
                .chat
                .lines
                .iter()
                .filter(|line| self.line_readers(line).include(seat))
                .cloned()
                .collect(),
            black: self.chat.settings[0],
            white: self.chat.settings[1],
            muted,
        }
    }

    /// The room's last `n` messages, hidden ones left out, whoever may read them: what a report
    /// keeps for the operators.
    pub fn last_lines(&self, n: usize) -> Vec<ChatLine> {
        let skip = self.chat.lines.len().saturating_sub(n);
        self.chat.lines.iter().skip(skip).cloned().collect()
    }

    /// Who reads the frame of `event`, logged as `v` and applied: a spectators' message only
    /// those who may read that channel; anything else everyone. The others get
    /// [`withheld`]'s frame, so that every connection's versions stay consecutive.
    pub fn readers(&self, event: &Event, v: u64) -> Readers {
        match event {
            Event::Said { .. } => self
                .chat
                .lines
                .iter()
                .rev()
                .find(|line| line.v == v)
                .map_or(Readers::ALL, |line| self.line_readers(line)),
            _ => Readers::ALL,
        }
    }

    fn line_readers(&self, line: &ChatLine) -> Readers {
        if line.channel == Channel::Players {
            return Readers::ALL;
        }
        let reads = |side: Side| {
            let i = index(side);
            (self.is_over() || self.chat.settings[i].spectators)
                && !self.chat.muted[i].contains(&line.by)
        };
        Readers {
            black: reads(Side::Black),
            white: reads(Side::White),
            spectators: true,
        }
    }

    /// What a chat event changes, as the fold meets it (`v` is its version).
    pub(super) fn fold_chat(&mut self, event: &Event, v: u64, at: UnixMs) {
        let chat = std::sync::Arc::make_mut(&mut self.chat);
        match event {
            Event::Said {
                by,
                channel,
                name,
                preset,
                text,
                ..
            } => {
                chat.lines.push_back(ChatLine {
                    v,
                    at,
                    by: by.clone(),
                    channel: *channel,
                    name: name.clone(),
                    preset: preset.clone(),
                    text: text.clone(),
                });
                if chat.lines.len() > CHAT_SHOWN {
                    chat.lines.pop_front();
                }
            }
            Event::ChatSet {
                side,
                free_text,
                spectators,
            } => {
                chat.settings[index(*side)] = ChatSettings {
                    free_text: *free_text,
                    spectators: *spectators,
                };
                let set_at = &mut chat.set_at[index(*side)];
                if set_at.len() >= FLOOD_MESSAGES {
                    set_at.pop_front();
                }
                set_at.push_back(at);
            }
            Event::Muted { side, who } => chat.muted[index(*side)].push(who.clone()),
            Event::ChatHidden { message } => chat.lines.retain(|line| line.v != *message),
            _ => return,
        }
        match Budget::of_event(event) {
            Some(Budget::Player(side)) => {
                chat.logged[index(side)] = chat.logged[index(side)].saturating_add(1);
            }
            Some(Budget::Spectators) => {
                chat.spectators_logged = chat.spectators_logged.saturating_add(1);
            }
            None => {}
        }
    }
}

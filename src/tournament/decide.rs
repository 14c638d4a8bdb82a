//! Decisions: what a player's or the director's command adds to the log, judged against the
//! folded state, or why it is refused ([`Refusal`], this layer's error, worded for the wire
//! once at the edge). Pure: room ids and waiting times come from the caller.

use super::event::{Event, Format, PairedBoard, Waited};
use super::fold::{Status, Tournament};
use super::pairing::{self, Board, MAX_PLAYERS, PairingError};

/// Why a command was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the tournament is not open for this")]
    NotOpen,
    #[error("the tournament has its {MAX_PLAYERS} players")]
    Full,
    #[error("you are registered already")]
    AlreadyRegistered,
    #[error("your rating {rating} is outside the tournament's limits")]
    RatingOutOfLimits { rating: i32 },
    #[error("you are not in this tournament")]
    NotRegistered,
    #[error("only an Arena's players pause")]
    NotArena,
    #[error("there is nothing to pair now")]
    NothingToPair,
    #[error(transparent)]
    Pairing(#[from] PairingError),
}

/// The fewest players a tournament starts with.
pub const MIN_PLAYERS: usize = 2;

impl Tournament {
    /// A player joins: Swiss before the start, Arena until it ends.
    pub fn register(&self, id: &str, name: &str, rating: i32) -> Result<Event, Refusal> {
        let settings = self.settings.as_ref().ok_or(Refusal::NotOpen)?;
        let open = match settings.format {
            Format::Swiss { .. } => self.status == Status::Upcoming,
            Format::Arena { .. } => matches!(self.status, Status::Upcoming | Status::Running),
        };
        if !open {
            return Err(Refusal::NotOpen);
        }
        if self.players.iter().any(|p| p.id == id) {
            return Err(Refusal::AlreadyRegistered);
        }
        if self.players.len() >= MAX_PLAYERS {
            return Err(Refusal::Full);
        }
        let below = settings.min_rating.is_some_and(|min| rating < min);
        if below || settings.max_rating.is_some_and(|max| rating > max) {
            return Err(Refusal::RatingOutOfLimits { rating });
        }
        Ok(Event::Registered {
            player: self.players.len() as u32 + 1,
            id: id.to_owned(),
            name: name.to_owned(),
            rating,
        })
    }

    /// The number of the registered player with public id `id`, still in.
    pub fn number_of(&self, id: &str) -> Result<u32, Refusal> {
        let index = self.players.iter().position(|p| p.id == id && !p.withdrawn);
        index.map(|i| i as u32 + 1).ok_or(Refusal::NotRegistered)
    }

    pub fn withdraw(&self, id: &str) -> Result<Event, Refusal> {
        self.open()?;
        Ok(Event::Withdrawn {
            player: self.number_of(id)?,
        })
    }

    /// Leaves the Arena's pool (`pause`), or comes back to it.
    pub fn pause(&self, id: &str, pause: bool) -> Result<Event, Refusal> {
        self.open()?;
        if !matches!(self.format(), Some(Format::Arena { .. })) {
            return Err(Refusal::NotArena);
        }
        let player = self.number_of(id)?;
        Ok(match pause {
            true => Event::Paused { player },
            false => Event::Resumed { player },
        })
    }

    /// At the scheduled start: started, or cancelled with fewer than [`MIN_PLAYERS`].
    pub fn start(&self) -> Result<Event, Refusal> {
        if self.status != Status::Upcoming {
            return Err(Refusal::NotOpen);
        }
        let players = self.players.iter().filter(|p| !p.withdrawn).count();
        Ok(match players >= MIN_PLAYERS {
            true => Event::Started,
            false => Event::Cancelled {
                reason: format!("{players} player(s) at the start; {MIN_PLAYERS} needed"),
            },
        })
    }

    /// The next Swiss round's pairing, each board in the room `room` names for it.
    pub fn pair_swiss(&self, room: impl FnMut() -> String) -> Result<Event, Refusal> {
        let Some(Format::Swiss { rounds }) = self.format() else {
            return Err(Refusal::NothingToPair);
        };
        if self.status != Status::Running || self.round >= rounds || !self.games.is_empty() {
            return Err(Refusal::NothingToPair);
        }
        let pairing = pairing::swiss::pair_round(&self.swiss_players())?;
        Ok(Event::Paired {
            round: self.round + 1,
            boards: in_rooms(&pairing.boards, room),
            bye: pairing.bye,
            pool: Vec::new(),
        })
    }

    /// An Arena pairing of every free player, from how long each has waited
    /// (`waited_ms(player)`); `None` when it makes no board.
    pub fn pair_arena(
        &self,
        waited_ms: impl Fn(u32) -> u64,
        room: impl FnMut() -> String,
    ) -> Result<Option<Event>, Refusal> {
        if self.status != Status::Running || !matches!(self.format(), Some(Format::Arena { .. })) {
            return Err(Refusal::NothingToPair);
        }
        let pool: Vec<Waited> = self
            .free()
            .into_iter()
            .map(|player| Waited {
                player,
                waited_ms: waited_ms(player),
            })
            .collect();
        let boards = pairing::arena::pair_pool(&self.arena_pool(&pool))?;
        Ok((!boards.is_empty()).then(|| Event::Paired {
            round: 0,
            boards: in_rooms(&boards, room),
            bye: None,
            pool,
        }))
    }
}

fn in_rooms(boards: &[Board], mut room: impl FnMut() -> String) -> Vec<PairedBoard> {
    boards
        .iter()
        .map(|b| PairedBoard {
            black: b.black,
            white: b.white,
            room: room(),
        })
        .collect()
}

impl Tournament {
    fn open(&self) -> Result<(), Refusal> {
        match self.status {
            Status::Upcoming | Status::Running => Ok(()),
            _ => Err(Refusal::NotOpen),
        }
    }
}

impl Tournament {
    /// An operator stops the tournament where it stands (`senet admin cancel-tournament`).
    pub fn cancel(&self, reason: &str) -> Result<Event, Refusal> {
        self.open()?;
        Ok(Event::Cancelled {
            reason: reason.to_owned(),
        })
    }
}

impl Tournament {
    /// The end of a running tournament once its last game ended: a Swiss after its last round
    /// (or with fewer than two players left to pair), an Arena at `now` past its duration.
    pub fn finish(&self, now: crate::protocol::UnixMs) -> Result<Event, Refusal> {
        let settings = self.settings.as_ref().ok_or(Refusal::NotOpen)?;
        if self.status != Status::Running || !self.games.is_empty() {
            return Err(Refusal::NotOpen);
        }
        let over = match settings.format {
            Format::Swiss { rounds } => {
                let left = self.players.iter().filter(|p| !p.withdrawn).count();
                self.round >= rounds || left < MIN_PLAYERS
            }
            Format::Arena { .. } => self.ends_at().is_some_and(|end| now >= end),
        };
        match over {
            true => Ok(Event::Finished),
            false => Err(Refusal::NotOpen),
        }
    }

    /// When an Arena's pairing stops: its start plus its duration.
    pub fn ends_at(&self) -> Option<crate::protocol::UnixMs> {
        let settings = self.settings.as_ref()?;
        match settings.format {
            Format::Arena { minutes } => Some(settings.starts_at + i64::from(minutes) * 60_000),
            Format::Swiss { .. } => None,
        }
    }
}

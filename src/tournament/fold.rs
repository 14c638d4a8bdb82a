//! The fold: a tournament's state is its log's events applied in order. An event the state
//! cannot take (an unknown player, a result for no game, a second result) is a [`FoldError`]
//! naming it, so a log that does not replay is found at its first wrong event.

use std::collections::BTreeMap;

use super::event::{Event, Format, Outcome, Settings};
use super::pairing::Colour;

/// Where a tournament is in its life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Status {
    /// Before the first event (only a fold that has not begun).
    #[default]
    Empty,
    Upcoming,
    Running,
    Finished,
    Cancelled,
}

/// One game a player played, from their side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    pub opponent: u32,
    pub colour: Colour,
    /// What the game scored them, in half-points (an Arena streak's doubling included).
    pub points: u32,
    /// The plain result's half-points (win 2, draw 1, loss 0), for Sonneborn–Berger.
    pub result: u32,
}

/// A registered player and what their games gave them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The public player id.
    pub id: String,
    pub name: String,
    pub rating: i32,
    pub withdrawn: bool,
    pub paused: bool,
    /// Half-points, byes and streak bonuses included.
    pub score: u32,
    pub wins: u32,
    /// Wins in a row, up to now (Arena).
    pub streak: u32,
    pub had_bye: bool,
    /// Finished games, in the order they ended.
    pub games: Vec<Played>,
    /// Colours of every game paired so far (finished or not), in order.
    pub colours: Vec<Colour>,
    /// Everyone paired against so far, the latest last.
    pub opponents: Vec<u32>,
    /// The room of the game the player is in, while it lasts.
    pub playing: Option<String>,
}

/// A game paired and not yet ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub black: u32,
    pub white: u32,
    pub round: u32,
}

/// A tournament as its log so far makes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tournament {
    /// How many events were applied.
    pub v: u64,
    pub settings: Option<Settings>,
    pub status: Status,
    /// Players by number − 1.
    pub players: Vec<Entry>,
    /// The last Swiss round paired (0 before the first).
    pub round: u32,
    /// Games being played, by room.
    pub games: BTreeMap<String, Game>,
    /// Every room the tournament ever paired, to refuse a room used twice.
    pub rooms: BTreeMap<String, u32>,
}

/// An event the state cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {v} ({kind}): {why}")]
pub struct FoldError {
    pub v: u64,
    pub kind: String,
    pub why: String,
}

impl Tournament {
    /// The state after `events`, or the first event that does not apply.
    pub fn replay<'a>(
        events: impl IntoIterator<Item = &'a Event>,
    ) -> Result<Tournament, FoldError> {
        let mut tournament = Tournament::default();
        for event in events {
            tournament.apply(event)?;
        }
        Ok(tournament)
    }

    pub fn format(&self) -> Option<Format> {
        self.settings.as_ref().map(|s| s.format)
    }

    /// The player numbered `number`, if registered.
    pub fn player(&self, number: u32) -> Option<&Entry> {
        self.players.get((number as usize).checked_sub(1)?)
    }

    /// Applies the next event of the log.
    pub fn apply(&mut self, event: &Event) -> Result<(), FoldError> {
        let v = self.v + 1;
        let kind = event.to_stored().0;
        self.step(event).map_err(|why| FoldError { v, kind, why })?;
        self.v = v;
        Ok(())
    }

    fn step(&mut self, event: &Event) -> Result<(), String> {
        match event {
            Event::Created(settings) => {
                self.expect(Status::Empty)?;
                self.settings = Some(settings.clone());
                self.status = Status::Upcoming;
            }
            Event::Registered {
                player,
                id,
                name,
                rating,
            } => {
                self.expect_open()?;
                if *player as usize != self.players.len() + 1 {
                    return Err(format!(
                        "player {player} registered; the next number is {}",
                        self.players.len() + 1
                    ));
                }
                if self.players.iter().any(|p| &p.id == id) {
                    return Err(format!("{id} is registered already"));
                }
                self.players.push(Entry {
                    id: id.clone(),
                    name: name.clone(),
                    rating: *rating,
                    ..Entry::default()
                });
            }
            Event::Withdrawn { player } => self.entry(*player)?.withdrawn = true,
            Event::Paused { player } | Event::Resumed { player } => {
                if !matches!(self.format(), Some(Format::Arena { .. })) {
                    return Err("only an Arena's players pause".into());
                }
                self.entry(*player)?.paused = matches!(event, Event::Paused { .. });
            }
            Event::Started => {
                self.expect(Status::Upcoming)?;
                self.status = Status::Running;
            }
            Event::Cancelled { .. } => {
                self.expect_open()?;
                self.status = Status::Cancelled;
            }
            Event::Paired {
                round, boards, bye, ..
            } => {
                self.expect(Status::Running)?;
                self.pair(*round, boards, *bye)?;
            }
            Event::Result { room, outcome } => self.result(room, *outcome)?,
            Event::Finished => {
                self.expect(Status::Running)?;
                if !self.games.is_empty() {
                    return Err(format!("{} game(s) still being played", self.games.len()));
                }
                self.status = Status::Finished;
            }
        }
        Ok(())
    }

    fn expect(&self, status: Status) -> Result<(), String> {
        match self.status == status {
            true => Ok(()),
            false => Err(format!(
                "the tournament is {:?}, not {status:?}",
                self.status
            )),
        }
    }

    fn expect_open(&self) -> Result<(), String> {
        match self.status {
            Status::Upcoming | Status::Running => Ok(()),
            status => Err(format!("the tournament is {status:?}")),
        }
    }

    fn entry(&mut self, number: u32) -> Result<&mut Entry, String> {
        let index = (number as usize)
            .checked_sub(1)
            .filter(|&i| i < self.players.len());
        index
            .map(|i| &mut self.players[i])
            .ok_or_else(|| format!("no player {number}"))
    }

    fn pair(
        &mut self,
        round: u32,
        boards: &[super::event::PairedBoard],
        bye: Option<u32>,
    ) -> Result<(), String> {
        match self.format() {
            Some(Format::Swiss { rounds }) => {
                if round != self.round + 1 || round > rounds {
                    return Err(format!(
                        "round {round} after round {} of {rounds}",
                        self.round
                    ));
                }
                if !self.games.is_empty() {
                    return Err("a round paired while games of the last are played".into());
                }
                self.round = round;
            }
            _ if round != 0 || bye.is_some() => {
                return Err("an Arena pairs with round 0 and no bye".into());
            }
            _ => {}
        }
        for board in boards {
            if self.rooms.insert(board.room.clone(), round).is_some() {
                return Err(format!("room {} paired twice", board.room));
            }
            for (number, colour, opponent) in [
                (board.black, Colour::Black, board.white),
                (board.white, Colour::White, board.black),
            ] {
                let entry = self.entry(number)?;
                if entry.withdrawn || entry.paused || entry.playing.is_some() {
                    return Err(format!(
                        "player {number} paired while withdrawn, paused or playing"
                    ));
                }
                entry.colours.push(colour);
                entry.opponents.push(opponent);
                entry.playing = Some(board.room.clone());
            }
            let game = Game {
                black: board.black,
                white: board.white,
                round,
            };
            self.games.insert(board.room.clone(), game);
        }
        if let Some(number) = bye {
            let entry = self.entry(number)?;
            entry.had_bye = true;
            entry.score += 2;
        }
        Ok(())
    }

    fn result(&mut self, room: &str, outcome: Outcome) -> Result<(), String> {
        let game = self
            .games
            .remove(room)
            .ok_or_else(|| format!("no game in play in room {room}"))?;
        let arena = matches!(self.format(), Some(Format::Arena { .. }));
        for (number, colour, opponent) in [
            (game.black, Colour::Black, game.white),
            (game.white, Colour::White, game.black),
        ] {
            let entry = self.entry(number)?;
            let result = outcome.half_points(colour);
            let points = match arena && entry.streak >= 2 {
                true => result * 2,
                false => result,
            };
            entry.streak = if result == 2 { entry.streak + 1 } else { 0 };
            entry.wins += u32::from(result == 2);
            entry.score += points;
            entry.playing = None;
            entry.games.push(Played {
                opponent,
                colour,
                points,
                result,
            });
        }
        Ok(())
    }
}

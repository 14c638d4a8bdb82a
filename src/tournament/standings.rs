//! Standings and the pairing's view of the players, both read off the folded state.

use std::cmp::Reverse;

use super::event::{Format, Waited};
use super::fold::Tournament;
use super::pairing::Colour;
use super::pairing::arena::ArenaWaiting;
use super::pairing::swiss::SwissPlayer;

/// A line of the standings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub player: u32,
    pub name: String,
    /// Half-points.
    pub score: u32,
    pub games: u32,
    pub wins: u32,
    /// Swiss: the sum of the opponents' scores, in half-points.
    pub buchholz: u32,
    /// Swiss: Sonneborn–Berger in quarter-points (the sum, over games, of the plain result's
    /// half-points times the opponent's score in half-points).
    pub sonneborn_berger: u32,
    pub withdrawn: bool,
    /// Arena: two wins in a row or more (a win scores double).
    pub on_fire: bool,
}

impl Tournament {
    /// Everyone registered, best first: Swiss by score, Buchholz, Sonneborn–Berger, rating,
    /// number; Arena by score, wins, number (docs/TOURNAMENTS.md).
    pub fn standings(&self) -> Vec<Standing> {
        let score = |number: u32| self.player(number).map_or(0, |p| p.score);
        let mut lines: Vec<(i32, Standing)> = (1..=self.players.len() as u32)
            .map(|number| {
                let entry = &self.players[number as usize - 1];
                let line = Standing {
                    player: number,
                    name: entry.name.clone(),
                    score: entry.score,
                    games: entry.games.len() as u32,
                    wins: entry.wins,
                    buchholz: entry.games.iter().map(|g| score(g.opponent)).sum(),
                    sonneborn_berger: entry
                        .games
                        .iter()
                        .map(|g| g.result * score(g.opponent))
                        .sum(),
                    withdrawn: entry.withdrawn,
                    on_fire: entry.streak >= 2,
                };
                (entry.rating, line)
            })
            .collect();
        match self.format() {
            Some(Format::Swiss { .. }) => lines.sort_by_key(|(rating, s)| {
                (
                    Reverse(s.score),
                    Reverse(s.buchholz),
                    Reverse(s.sonneborn_berger),
                    Reverse(*rating),
                    s.player,
                )
            }),
            _ => lines.sort_by_key(|(_, s)| (Reverse(s.score), Reverse(s.wins), s.player)),
        }
        lines.into_iter().map(|(_, line)| line).collect()
    }

    /// The players a Swiss round pairs: everyone not withdrawn, as the pairing sees them.
    pub fn swiss_players(&self) -> Vec<SwissPlayer> {
        self.numbered()
            .filter(|(_, entry)| !entry.withdrawn)
            .map(|(number, entry)| SwissPlayer {
                id: number,
                rating: entry.rating,
                score: entry.score,
                opponents: entry.opponents.clone(),
                colours: entry.colours.clone(),
                had_bye: entry.had_bye,
            })
            .collect()
    }

    /// The Arena players free to be paired now: not withdrawn, not paused, not playing.
    pub fn free(&self) -> Vec<u32> {
        self.numbered()
            .filter(|(_, e)| !e.withdrawn && !e.paused && e.playing.is_none())
            .map(|(number, _)| number)
            .collect()
    }

    /// An Arena's waiting pool as the pairing sees it, from how long each had waited.
    pub fn arena_pool(&self, waited: &[Waited]) -> Vec<ArenaWaiting> {
        let places = self.standings();
        let rank = |number: u32| places.iter().position(|s| s.player == number).unwrap_or(0) as u32;
        waited
            .iter()
            .filter_map(|w| {
                let entry = self.player(w.player)?;
                let blacks = entry
                    .colours
                    .iter()
                    .filter(|&&c| c == Colour::Black)
                    .count() as i32;
                Some(ArenaWaiting {
                    id: w.player,
                    rank: rank(w.player),
                    rating: entry.rating,
                    last_opponent: entry.opponents.last().copied(),
                    waited_ms: w.waited_ms,
                    colour_balance: 2 * blacks - entry.colours.len() as i32,
                })
            })
            .collect()
    }

    fn numbered(&self) -> impl Iterator<Item = (u32, &super::fold::Entry)> {
        self.players
            .iter()
            .enumerate()
            .map(|(i, entry)| (i as u32 + 1, entry))
    }
}

impl Tournament {
    /// What the lists show of the tournament (the stored summary, written with each append).
    pub fn summary(&self) -> serde_json::Value {
        serde_json::json!({
            "settings": self.settings,
            "status": format!("{:?}", self.status).to_lowercase(),
            "players": self.players.iter().filter(|p| !p.withdrawn).count(),
            "round": self.round,
            "v": self.v,
        })
    }
}

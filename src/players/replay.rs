//! Every rating recomputed from the event log (`senet ratings verify`): rated games in the
//! order they were numbered, each judged again by the rated-game rule from its own log (who won
//! and when from `game-over`, the moves from `moved`), each player's change computed again from
//! the previous change this replay computed — never from a stored value — and compared with
//! what is stored, bit for bit. The first difference is the answer.

use std::collections::HashMap;

use serde::Serialize;
use skillratings::glicko2::Glicko2Rating;

use super::model::{Change, FinishedGame, PlayerRow, RatedGameRow, RoomPlayers};
use super::rating::{self, GameFacts, Score, Standing};
use crate::engine::Side;
use crate::protocol::{Event, Mode, UnixMs, Winner};
use crate::store::StoredEvent;

/// What the rooms' store knows of a rated game's room.
pub struct GameLog {
    /// `None` if the room is gone.
    pub mode: Option<Mode>,
    pub players: Option<RoomPlayers>,
    pub events: Vec<StoredEvent>,
}

/// The first thing the replay and the store disagree on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Difference {
    /// The rated game's number (0 for a player's final standing).
    pub game: i64,
    pub room: String,
    pub player: Option<String>,
    pub what: String,
    pub stored: String,
    pub computed: String,
}

/// The replay so far: each player's standing after the games replayed.
#[derive(Default)]
pub struct Replay {
    standings: HashMap<String, Standing>,
    /// Each pair's rated games' times (key: the two ids in order), for the pair limit.
    pairs: HashMap<(String, String), Vec<UnixMs>>,
    pub games: u64,
}

impl Replay {
    /// Replays one rated game, given its room's log and its stored changes.
    pub fn game(
        &mut self,
        game: &RatedGameRow,
        log: &GameLog,
        stored: &[(String, Change)],
    ) -> Result<(), Box<Difference>> {
        let differ = |player: Option<&str>, what: &str, stored: String, computed: String| {
            Box::new(Difference {
                game: game.seq,
                room: game.room.clone(),
                player: player.map(str::to_string),
                what: what.to_string(),
                stored,
                computed,
            })
        };
        let (winner, at, moves) = facts_of(&log.events)
            .map_err(|problem| differ(None, "log", "a rated game".into(), problem))?;
        if at != game.at {
            return Err(differ(None, "time", game.at.to_string(), at.to_string()));
        }
        let score = Score::of(winner);
        let Some(score) = score.filter(|&score| Score::from_points(game.score) == Some(score))
        else {
            let computed = score.map_or("no result".into(), |score| score.points().to_string());
            return Err(differ(None, "score", game.score.to_string(), computed));
        };
        let pair = pair_key(&game.black, &game.white);
        let recent = self.pairs.get(&pair).map_or(0, |ats| {
            ats.iter()
                .filter(|&&t| t > at - rating::PAIR_WINDOW_MS)
                .count()
        });
        let players = log.players.clone().unwrap_or(RoomPlayers {
            rated: false,
            black: None,
            white: None,
        });
        let facts = GameFacts {
            mode: log.mode.unwrap_or(Mode::Local),
            created_rated: players.rated,
            black: players.black.as_deref(),
            white: players.white.as_deref(),
            moves,
            recent_pair_games: u32::try_from(recent).unwrap_or(u32::MAX),
        };
        match rating::rated_players(&facts) {
            Ok((black, white)) if (black, white) == (game.black.as_str(), game.white.as_str()) => {}
            Ok((black, white)) => {
                let seated = format!("{black} / {white}");
                return Err(differ(
                    None,
                    "players",
                    format!("{} / {}", game.black, game.white),
                    seated,
                ));
            }
            Err(why) => return Err(differ(None, "rated", "rated".into(), why.to_string())),
        }
        let changes = self.rate(game.seq, &game.black, &game.white, score, at);
        for (id, computed) in &changes {
            let Some((_, change)) = stored.iter().find(|(player, _)| player == id) else {
                return Err(differ(Some(id), "change", "none".into(), "a change".into()));
            };
            compare(&change.before, &computed.before, "before")
                .and_then(|()| compare(&change.after, &computed.after, "after"))
                .map_err(|(what, s, c)| differ(Some(id), &what, s, c))?;
        }
        self.pairs.entry(pair).or_default().push(at);
        Ok(())
    }

    /// Rates a stored game again, as numbered, with the parameters in use (the store's
    /// re-rating when they change): each side's id and change, black's first. Which games are
    /// rated does not depend on the parameters, so the log is not read again.
    pub fn rerate(&mut self, game: &RatedGameRow) -> Result<[(String, Change); 2], String> {
        let score = Score::from_points(game.score)
            .ok_or_else(|| format!("rated game {} scored {}", game.seq, game.score))?;
        Ok(self.rate(game.seq, &game.black, &game.white, score, game.at))
    }

    /// Every player's standing after the games replayed.
    pub fn standings(&self) -> impl Iterator<Item = (&String, &Standing)> {
        self.standings.iter()
    }

    /// Both players' changes from a game, from the standings this replay computed, which it
    /// then holds.
    fn rate(
        &mut self,
        seq: i64,
        black: &str,
        white: &str,
        score: Score,
        at: UnixMs,
    ) -> [(String, Change); 2] {
        let standings = (self.standing(black), self.standing(white));
        let (black_after, white_after) = rating::rate(standings.0, standings.1, score, at);
        self.games += 1;
        [
            (black, standings.0, black_after),
            (white, standings.1, white_after),
        ]
        .map(|(id, standing, after)| {
            let change = Change {
                seq,
                before: rating::at(standing, at),
                after,
            };
            self.standings.insert(
                id.to_string(),
                Standing {
                    rating: after,
                    rated_at: Some(at),
                },
            );
            (id.to_string(), change)
        })
    }

    /// Checks a player's stored standing against the replay's.
    pub fn player(&self, row: &PlayerRow) -> Result<(), Box<Difference>> {
        let computed = self.standing(&row.id);
        let differ = |what: String, stored: String, computed: String| {
            Box::new(Difference {
                game: 0,
                room: String::new(),
                player: Some(row.id.clone()),
                what,
                stored,
                computed,
            })
        };
        if row.standing.rated_at != computed.rated_at {
            return Err(differ(
                "rated_at".into(),
                format!("{:?}", row.standing.rated_at),
                format!("{:?}", computed.rated_at),
            ));
        }
        compare(&row.standing.rating, &computed.rating, "standing")
            .map_err(|(w, s, c)| differ(w, s, c))
    }

    fn standing(&self, player: &str) -> Standing {
        self.standings.get(player).copied().unwrap_or(Standing::NEW)
    }
}

/// A rated room's finished game as the rated-game rule judges it from its log, as the replay
/// does — the pair limit aside, which the store counts under its locks. `Err` says why it is
/// not rated (or why its log cannot say).
pub fn finished_game(
    room: &str,
    mode: Mode,
    players: &RoomPlayers,
    events: &[StoredEvent],
) -> Result<FinishedGame, String> {
    let (winner, at, moves) = facts_of(events)?;
    let facts = GameFacts {
        mode,
        created_rated: players.rated,
        black: players.black.as_deref(),
        white: players.white.as_deref(),
        moves,
        recent_pair_games: 0,
    };
    let (black, white) = rating::rated_players(&facts).map_err(|why| why.to_string())?;
    Ok(FinishedGame {
        room: room.to_owned(),
        black: black.to_owned(),
        white: white.to_owned(),
        score: Score::of(winner).ok_or("the operator ended it without a result")?,
        at,
    })
}

/// Who won, when the game ended, and how many moves each side made, from a room's log.
fn facts_of(events: &[StoredEvent]) -> Result<(Winner, UnixMs, [u32; 2]), String> {
    let mut moves = [0u32; 2];
    for stored in events {
        let event = Event::from_parts(&stored.kind, &stored.data)
            .map_err(|e| format!("event {} unreadable: {e}", stored.v))?;
        match event {
            Event::Moved { side, .. } => moves[usize::from(side == Side::White)] += 1,
            Event::GameOver { winner, .. } => return Ok((winner, stored.at, moves)),
            _ => {}
        }
    }
    Err("no game-over in the log".into())
}

fn pair_key(a: &str, b: &str) -> (String, String) {
    let (low, high) = if a <= b { (a, b) } else { (b, a) };
    (low.to_string(), high.to_string())
}

/// Compares three numbers bit for bit; on a difference, which one and both values exactly.
fn compare(
    stored: &Glicko2Rating,
    computed: &Glicko2Rating,
    when: &str,
) -> Result<(), (String, String, String)> {
    let fields = [
        ("rating", stored.rating, computed.rating),
        ("deviation", stored.deviation, computed.deviation),
        ("volatility", stored.volatility, computed.volatility),
    ];
    match fields.iter().find(|(_, s, c)| s.to_bits() != c.to_bits()) {
        None => Ok(()),
        // `{:?}` prints the shortest text that reads back as the same f64: exact.
        Some((name, s, c)) => Err((format!("{name} {when}"), format!("{s:?}"), format!("{c:?}"))),
    }
}

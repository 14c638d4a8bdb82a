//! What a teacher starts for the whole class: pairings (at random, or a quick Swiss round on the
//! tournaments' pairing), games against the computer, a pause of every clock, the end of every
//! game. Each starts at most one game per pupil ([`super::MAX_PUPILS`] rooms), and only for
//! pupils not already playing a class game, so pressing "pair" twice starts nothing twice.

use std::collections::{BTreeMap, HashMap};

use rand::seq::SliceRandom;

use super::report::{self, Played};
use super::{ClassError, ClassRow, ClassStore, GameRow, MAX_GAMES, PupilRow};
use crate::ai::Level;
use crate::protocol::{Seat, SideChoice, TimeControl};
use crate::room::{NewRoom, Rooms, now_ms};
use crate::secrets::{new_room_id, new_token};
use crate::tournament::pairing::Colour;
use crate::tournament::pairing::swiss::{SwissPlayer, pair_round};

/// How the teacher pairs the class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pairing {
    Random,
    /// One Swiss round over the class's games so far: pupils with the same score meet, nobody
    /// meets the same pupil twice while another pairing exists.
    Swiss,
}

/// The note of a game the teacher ended.
pub const ENDED_NOTE: &str = "ended by the teacher";

/// What a teacher's start made: the rooms started.
#[derive(Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Started {
    pub games: usize,
    /// Pupils who play the computer: the odd one out of a pairing, or everyone.
    pub against_computer: usize,
}

/// The pupils not playing a class game now, in the order they joined.
async fn free_pupils(
    store: &ClassStore,
    rooms: &Rooms,
    class: &ClassRow,
) -> Result<(Vec<PupilRow>, Vec<Played>), ClassError> {
    let pupils = store.pupils(&class.id).await?;
    let played = report::played(store, rooms, &class.id).await?;
    let busy: Vec<&str> = played
        .iter()
        .filter(|game| game.in_play)
        .flat_map(|game| [game.row.black.as_deref(), game.row.white.as_deref()])
        .flatten()
        .collect();
    let free = pupils
        .into_iter()
        .filter(|pupil| !busy.contains(&pupil.id.as_str()))
        .collect();
    Ok((free, played))
}

/// Pairs the free pupils and starts their games (`clock`: timed, or untimed); an odd pupil out
/// plays the computer at `level`.
pub async fn pair(
    store: &ClassStore,
    rooms: &Rooms,
    class: &ClassRow,
    how: Pairing,
    clock: Option<TimeControl>,
    level: Level,
) -> Result<Started, ClassError> {
    let (mut free, played) = free_pupils(store, rooms, class).await?;
    check_games_left(&played, free.len().div_ceil(2))?;
    let (boards, odd) = match how {
        Pairing::Random => {
            free.shuffle(&mut rand::rng());
            let odd = (free.len() % 2 == 1).then(|| free.pop()).flatten();
            let boards = free
                .chunks_exact(2)
                .map(|two| (two[0].clone(), two[1].clone()))
                .collect();
            (boards, odd)
        }
        Pairing::Swiss => swiss(&free, &played)?,
    };
    let mut games = Vec::with_capacity(boards.len() + 1);
    for (black, white) in &boards {
        let (room, tokens) = (new_room_id(), [new_token(), new_token()]);
        rooms
            .create_seated(&room, clock, [&tokens[0], &tokens[1]])
            .await?;
        let [black_token, white_token] = tokens;
        games.push(GameRow {
            room,
            black: Some(black.id.clone()),
            white: Some(white.id.clone()),
            black_token: Some(black_token),
            white_token: Some(white_token),
            started_at: now_ms(),
        });
    }
    let odd: Vec<PupilRow> = odd.into_iter().collect();
    games.extend(against_computer(rooms, &odd, level).await?);
    store.add_games(&class.id, &games).await?;
    Ok(Started {
        games: games.len(),
        against_computer: odd.len(),
    })
}

/// Starts a game against the computer at `level` for every free pupil.
pub async fn vs_computer(
    store: &ClassStore,
    rooms: &Rooms,
    class: &ClassRow,
    level: Level,
) -> Result<Started, ClassError> {
    let (free, played) = free_pupils(store, rooms, class).await?;
    check_games_left(&played, free.len())?;
    let games = against_computer(rooms, &free, level).await?;
    store.add_games(&class.id, &games).await?;
    Ok(Started {
        games: games.len(),
        against_computer: games.len(),
    })
}

/// [`ClassError::GamesSpent`] if `more` games would take the class past [`MAX_GAMES`].
fn check_games_left(played: &[Played], more: usize) -> Result<(), ClassError> {
    match played.len() + more > MAX_GAMES {
        true => Err(ClassError::GamesSpent),
        false => Ok(()),
    }
}

async fn against_computer(
    rooms: &Rooms,
    pupils: &[PupilRow],
    level: Level,
) -> Result<Vec<GameRow>, ClassError> {
    let mut games = Vec::with_capacity(pupils.len());
    for pupil in pupils {
        let created = rooms
            .create(NewRoom::Ai(level), SideChoice::Random, None)
            .await?;
        let black = created.seat == Seat::Black;
        let (mine, token) = (Some(pupil.id.clone()), Some(created.token));
        games.push(GameRow {
            room: created.room,
            black: if black { mine.clone() } else { None },
            white: if black { None } else { mine },
            black_token: if black { token.clone() } else { None },
            white_token: if black { None } else { token },
            started_at: now_ms(),
        });
    }
    Ok(games)
}

/// A pairing: its boards (black, white) and the odd pupil out, who plays the computer.
type Paired = (Vec<(PupilRow, PupilRow)>, Option<PupilRow>);

/// A Swiss round over the free pupils, each numbered by their place in `free`, scored by the
/// class's finished games between pupils (a win 2 half-points, as the tournaments count).
fn swiss(free: &[PupilRow], played: &[Played]) -> Result<Paired, ClassError> {
    let number: HashMap<&str, u32> = free
        .iter()
        .zip(0..)
        .map(|(pupil, n)| (pupil.id.as_str(), n))
        .collect();
    let mut players: BTreeMap<u32, SwissPlayer> = number
        .values()
        .map(|&id| {
            let player = SwissPlayer {
                id,
                ..SwissPlayer::default()
            };
            (id, player)
        })
        .collect();
    for game in played.iter().filter(|game| !game.in_play) {
        let seat = |pupil: &Option<String>| pupil.as_deref().and_then(|id| number.get(id).copied());
        let (black, white) = (seat(&game.row.black), seat(&game.row.white));
        for (me, other, colour) in [(black, white, Colour::Black), (white, black, Colour::White)] {
            let Some(player) = me.and_then(|me| players.get_mut(&me)) else {
                continue;
            };
            if game.won_by(colour) {
                player.score += 2;
            }
            if let Some(other) = other {
                player.opponents.push(other);
                player.colours.push(colour);
            }
        }
    }
    let players: Vec<SwissPlayer> = players.into_values().collect();
    let round = pair_round(&players).map_err(|error| ClassError::Bad(error.to_string()))?;
    let pupil = |n: u32| free[n as usize].clone();
    let boards = round
        .boards
        .iter()
        .map(|board| (pupil(board.black), pupil(board.white)))
        .collect();
    Ok((boards, round.bye.map(pupil)))
}

/// Pauses (`hold`) or resumes the clock of every class game being played; how many.
pub async fn hold_all(
    store: &ClassStore,
    rooms: &Rooms,
    class: &ClassRow,
    hold: bool,
) -> Result<usize, ClassError> {
    let played = report::played(store, rooms, &class.id).await?;
    let mut held = 0;
    for game in played.iter().filter(|game| game.in_play) {
        rooms.hold_clock(&game.row.room, hold).await?;
        held += 1;
    }
    Ok(held)
}

/// Ends every class game being played (no winner); how many.
pub async fn end_all(
    store: &ClassStore,
    rooms: &Rooms,
    class: &ClassRow,
) -> Result<usize, ClassError> {
    let played = report::played(store, rooms, &class.id).await?;
    let mut ended = 0;
    for game in played.iter().filter(|game| game.in_play) {
        match rooms.end_game(&game.row.room, ENDED_NOTE).await {
            Ok(_) => ended += 1,
            // Over by itself meanwhile: nothing to end.
            Err(crate::room::RoomError::Refused(_)) => {}
            Err(error) => return Err(error.into()),
        }
    }
    Ok(ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_starts_at_most_its_games() {
        let game = Played {
            row: GameRow {
                room: "r".into(),
                black: None,
                white: None,
                black_token: None,
                white_token: None,
                started_at: 0,
            },
            in_play: false,
            winner: None,
            moves: 0,
        };
        let played = vec![game; MAX_GAMES - 15];
        assert!(check_games_left(&played, 15).is_ok());
        assert!(matches!(
            check_games_left(&played, 16),
            Err(ClassError::GamesSpent)
        ));
    }
}

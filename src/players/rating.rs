//! Glicko-2 ratings, computed by the `skillratings` crate (never by hand), with this server's
//! parameters and rules around it: the starting rating, the deviation's floor and its growth
//! with inactivity, the provisional mark, and which games are rated.
//!
//! Parameters ([`PARAMETERS`], docs/RATINGS.md says why and what the calibration measured):
//! start at 1500 with deviation 120 and volatility 0.01, τ 0.3, deviation never below 30,
//! provisional (`?`) while the deviation is ≥ 110. Fitted to Senet, whose whole field spans
//! about 250 points: skillratings' `glicko2` makes each game a rating period and adds the
//! volatility before it, so σ is a drift per game, and lichess's per-period values (500, 0.09,
//! 0.75, 45) made ratings too noisy to predict games.
//!
//! Inactivity: for every whole idle period (4 hours) between a player's previous rated game
//! and this one, the deviation grows as Glicko-2 says a missed period does
//! (`skillratings::glicko2::decay_deviation`), up to the crate's ceiling of 350. Everything is
//! a pure function of the previous values and the two games' times, so `senet ratings verify`
//! computes the same bits.

use skillratings::Outcomes;
use skillratings::glicko2::{
    Glicko2Config, Glicko2Rating, decay_deviation, expected_score, glicko2,
};

use crate::protocol::{Mode, UnixMs, Winner};

/// The rating system's parameters, named: the store records the name of the set its numbers
/// were computed with, and re-rates every past game when the set changes
/// (`players::store::rerate`), so `senet ratings verify` agrees with every database.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameters {
    pub name: &'static str,
    /// A newcomer's rating.
    pub start: Glicko2Rating,
    /// The Glicko-2 system constant: how fast volatility may change.
    pub tau: f64,
    /// The deviation never falls below this, so a rating keeps moving.
    pub min_deviation: f64,
    /// Inactivity: the deviation grows by one missed rating period per this much idle time.
    pub idle_period_ms: UnixMs,
}

/// The parameters in use (docs/RATINGS.md, "Parameters", says why).
pub const PARAMETERS: Parameters = Parameters {
    name: "senet-2026-12",
    start: Glicko2Rating {
        rating: 1500.0,
        deviation: 120.0,
        volatility: 0.01,
    },
    tau: 0.3,
    min_deviation: 30.0,
    idle_period_ms: 4 * 3_600_000,
};

/// A newcomer's rating.
pub const START: Glicko2Rating = PARAMETERS.start;

/// A rating is provisional while its deviation is at least this.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// The same two players' rated games within [`PAIR_WINDOW_MS`]: more are casual (farming).
pub const MAX_RATED_PER_PAIR: u32 = 3;
pub const PAIR_WINDOW_MS: UnixMs = 24 * 3_600_000;

/// The fewest moves each side must have made for the game to be rated (else it was aborted).
pub const MIN_MOVES_EACH: u32 = 2;

/// A player's rating as of their last rated game (`None`: never rated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Standing {
    pub rating: Glicko2Rating,
    pub rated_at: Option<UnixMs>,
}

impl Standing {
    pub const NEW: Standing = Standing {
        rating: START,
        rated_at: None,
    };
}

/// Black's result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Win,
    Loss,
    Draw,
}

impl Score {
    /// Black's result, from who won; `None` for a game ended without a result (by the
    /// operator), which is never rated.
    pub fn of(winner: Winner) -> Option<Score> {
        match winner {
            Winner::Black => Some(Score::Win),
            Winner::White => Some(Score::Loss),
            Winner::Draw => Some(Score::Draw),
            Winner::None => None,
        }
    }

    /// Black's points: 1, ½ or 0 (as stored in `rated_games.score`).
    pub fn points(self) -> f64 {
        match self {
            Score::Win => 1.0,
            Score::Loss => 0.0,
            Score::Draw => 0.5,
        }
    }

    /// White's result for the same game.
    pub fn flipped(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Loss => Score::Win,
            Score::Draw => Score::Draw,
        }
    }

    /// Black's result from stored points; `None` for anything but 1, ½ or 0.
    pub fn from_points(points: f64) -> Option<Score> {
        [Score::Win, Score::Loss, Score::Draw]
            .into_iter()
            .find(|score| score.points() == points)
    }

    fn outcome(self) -> Outcomes {
        match self {
            Score::Win => Outcomes::WIN,
            Score::Loss => Outcomes::LOSS,
            Score::Draw => Outcomes::DRAW,
        }
    }
}

/// A standing brought to `now` with the parameters in use (see [`Parameters::at`]).
pub fn at(standing: Standing, now: UnixMs) -> Glicko2Rating {
    PARAMETERS.at(standing, now)
}

/// Both players' ratings after a rated game that ended at `now` with black's `score`.
pub fn rate(
    black: Standing,
    white: Standing,
    score: Score,
    now: UnixMs,
) -> (Glicko2Rating, Glicko2Rating) {
    PARAMETERS.rate(black, white, score, now)
}

impl Parameters {
    /// [`rate`] with these parameters (the simulator measures other sets with it).
    pub fn rate(
        &self,
        black: Standing,
        white: Standing,
        score: Score,
        now: UnixMs,
    ) -> (Glicko2Rating, Glicko2Rating) {
        let config = Glicko2Config {
            tau: self.tau,
            convergence_tolerance: 0.000_001,
        };
        let (black, white) = glicko2(
            &self.at(black, now),
            &self.at(white, now),
            &score.outcome(),
            &config,
        );
        (self.floored(black), self.floored(white))
    }

    /// A standing brought to `now`: the deviation grown by each whole idle period since the
    /// last rated game, never shrunk (the crate caps a decayed deviation at 350, which would
    /// lower a deviation above it).
    pub fn at(&self, standing: Standing, now: UnixMs) -> Glicko2Rating {
        let idle_periods = standing
            .rated_at
            .map_or(0, |at| (now - at).max(0) / self.idle_period_ms);
        let mut rating = standing.rating;
        for _ in 0..idle_periods {
            let decayed = decay_deviation(&rating);
            if decayed.deviation <= rating.deviation {
                break;
            }
            rating = decayed;
        }
        rating
    }

    /// Black's expected score against white, both as of `now`.
    pub fn expected(&self, black: Standing, white: Standing, now: UnixMs) -> f64 {
        expected_score(&self.at(black, now), &self.at(white, now)).0
    }

    /// A newcomer's standing.
    pub fn new_standing(&self) -> Standing {
        Standing {
            rating: self.start,
            rated_at: None,
        }
    }

    fn floored(&self, rating: Glicko2Rating) -> Glicko2Rating {
        Glicko2Rating {
            deviation: rating.deviation.max(self.min_deviation),
            ..rating
        }
    }
}

/// Whether a rating is provisional (shown with `?`).
pub fn is_provisional(rating: &Glicko2Rating) -> bool {
    rating.deviation >= PROVISIONAL_DEVIATION
}

/// A rating as shown: rounded, with `?` while provisional (`1500?`).
pub fn shown(rating: &Glicko2Rating) -> String {
    let mark = if is_provisional(rating) { "?" } else { "" };
    format!("{}{mark}", rating.rating.round())
}

/// What decides whether a finished game is rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameFacts<'a> {
    pub mode: Mode,
    /// The room was created rated (the creator's choice).
    pub created_rated: bool,
    /// The players bound to the seats, `None` for a seat taken without an identity.
    pub black: Option<&'a str>,
    pub white: Option<&'a str>,
    /// Moves each side made (`moved` events; passes are not moves).
    pub moves: [u32; 2],
    /// Rated games these two players finished in the [`PAIR_WINDOW_MS`] before this one.
    pub recent_pair_games: u32,
}

/// Why a finished game is not rated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unrated {
    #[error("the game was created casual")]
    Casual,
    #[error("only online games between two players are rated")]
    NotOnline,
    #[error("rated games need two different identified players")]
    Players,
    #[error("one side made fewer than {MIN_MOVES_EACH} moves: the game was aborted")]
    Aborted,
    #[error("these two players had {MAX_RATED_PER_PAIR} rated games in the last 24 hours")]
    PairLimit,
}

/// The rated-game rule (docs/RATINGS.md): `Ok` with both players when the game is rated.
pub fn rated_players<'a>(facts: &GameFacts<'a>) -> Result<(&'a str, &'a str), Unrated> {
    if !facts.created_rated {
        return Err(Unrated::Casual);
    }
    if facts.mode != Mode::Online {
        return Err(Unrated::NotOnline);
    }
    let (Some(black), Some(white)) = (facts.black, facts.white) else {
        return Err(Unrated::Players);
    };
    if black == white {
        return Err(Unrated::Players);
    }
    if facts.moves.iter().any(|&n| n < MIN_MOVES_EACH) {
        return Err(Unrated::Aborted);
    }
    if facts.recent_pair_games >= MAX_RATED_PER_PAIR {
        return Err(Unrated::PairLimit);
    }
    Ok((black, white))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERIOD: UnixMs = PARAMETERS.idle_period_ms;

    fn standing(rating: f64, deviation: f64, rated_at: Option<UnixMs>) -> Standing {
        Standing {
            rating: Glicko2Rating {
                rating,
                deviation,
                volatility: 0.09,
            },
            rated_at,
        }
    }

    #[test]
    fn a_win_between_newcomers_moves_both_and_stays_provisional() {
        let (black, white) = rate(Standing::NEW, Standing::NEW, Score::Win, 0);
        assert!(
            black.rating > 1520.0 && white.rating < 1480.0,
            "{black:?} {white:?}"
        );
        assert_eq!(black.rating - 1500.0, 1500.0 - white.rating);
        assert!(black.deviation < START.deviation && is_provisional(&black));
        assert_eq!(shown(&START), "1500?");
        let (drawn, _) = rate(Standing::NEW, Standing::NEW, Score::Draw, 0);
        assert_eq!(drawn.rating, 1500.0);
    }

    #[test]
    fn the_deviation_floor_holds_and_grows_only_with_whole_idle_periods() {
        // A steady player's deviation would fall under the floor after a game.
        let steady = Standing {
            rating: Glicko2Rating {
                volatility: 0.001,
                ..standing(1800.0, 30.0, None).rating
            },
            rated_at: Some(0),
        };
        let (after, _) = rate(steady, steady, Score::Win, 1);
        assert_eq!(after.deviation, PARAMETERS.min_deviation);
        assert!(!is_provisional(&after));
        let settled = standing(1800.0, 30.0, Some(0));
        assert_eq!(at(settled, PERIOD - 1).deviation, 30.0);
        let one = at(settled, PERIOD).deviation;
        let thirty = at(settled, 30 * PERIOD).deviation;
        assert!(30.0 < one && one < thirty && thirty < 350.0);
        assert_eq!(at(settled, 100_000 * PERIOD).deviation, 350.0);
        // A deviation above the crate's decay ceiling: idle time leaves it alone.
        assert_eq!(
            at(standing(1500.0, 500.0, Some(0)), 10 * PERIOD).deviation,
            500.0
        );
    }

    #[test]
    fn the_rated_game_rule() {
        let rated = GameFacts {
            mode: Mode::Online,
            created_rated: true,
            black: Some("a"),
            white: Some("b"),
            moves: [2, 2],
            recent_pair_games: 2,
        };
        assert_eq!(rated_players(&rated), Ok(("a", "b")));
        let cases = [
            (
                GameFacts {
                    created_rated: false,
                    ..rated
                },
                Unrated::Casual,
            ),
            (
                GameFacts {
                    mode: Mode::Ai,
                    ..rated
                },
                Unrated::NotOnline,
            ),
            (
                GameFacts {
                    mode: Mode::Local,
                    ..rated
                },
                Unrated::NotOnline,
            ),
            (
                GameFacts {
                    white: None,
                    ..rated
                },
                Unrated::Players,
            ),
            (
                GameFacts {
                    white: Some("a"),
                    ..rated
                },
                Unrated::Players,
            ),
            (
                GameFacts {
                    moves: [5, 1],
                    ..rated
                },
                Unrated::Aborted,
            ),
            (
                GameFacts {
                    recent_pair_games: 3,
                    ..rated
                },
                Unrated::PairLimit,
            ),
        ];
        for (facts, why) in cases {
            assert_eq!(rated_players(&facts), Err(why));
        }
    }

    #[test]
    fn the_favourite_is_expected_to_win() {
        let strong = standing(1900.0, 60.0, Some(0));
        let weak = standing(1500.0, 60.0, Some(0));
        let p = PARAMETERS.expected(strong, weak, 0);
        assert!(0.85 < p && p < 0.95, "{p}");
    }
}

//! Puzzle ratings (issue 49): an identified player's first attempt at a puzzle is a rated game
//! between the player and the puzzle — solved is the player's win — on the game ratings'
//! Glicko-2 (`skillratings`, [`rating::PARAMETERS`]) but kept apart from them, and the puzzle is
//! rated too. No idle growth: a puzzle attempt is a stream, not a schedule of games. A puzzle
//! starts at the rating its difficulty says ([`start_of`]); a player at [`rating::START`].
//! Later attempts at the same puzzle change nothing (the `UNIQUE (player, puzzle)` of
//! migration 0430 and one transaction per attempt).
//!
//! Every attempt keeps both ratings after it, so [`verify`] replays them all in order from the
//! starts and finds the first stored number that differs (`senet ratings verify`).
//!
//! The store runs the same statements on SQLite and PostgreSQL (`super::pool`); an attempt's
//! transaction begins `IMMEDIATE` on SQLite and locks the two rating rows `FOR UPDATE` on
//! PostgreSQL (the player's, then the puzzle's: one order, so no deadlock).

use skillratings::glicko2::Glicko2Rating;

use sqlx::Row;

use super::pool::{Pool, RowLike, on_pool};
use super::rating::{self, Score, Standing};
use super::store::PlayerError;
use crate::protocol::UnixMs;
use crate::puzzles::{self, Difficulty, Puzzle};

/// A puzzle's starting rating by its difficulty: 1200, 1500, 1800, 2100.
pub fn start_of(difficulty: Difficulty) -> Glicko2Rating {
    let step = match difficulty {
        Difficulty::Easy => 0.0,
        Difficulty::Medium => 1.0,
        Difficulty::Hard => 2.0,
        Difficulty::Expert => 3.0,
    };
    Glicko2Rating {
        rating: 1200.0 + 300.0 * step,
        ..rating::START
    }
}

/// The player's and the puzzle's ratings after an attempt.
pub fn rate(
    player: Glicko2Rating,
    puzzle: Glicko2Rating,
    solved: bool,
) -> (Glicko2Rating, Glicko2Rating) {
    let standing = |rating| Standing {
        rating,
        rated_at: None,
    };
    let score = if solved { Score::Win } else { Score::Loss };
    rating::rate(standing(player), standing(puzzle), score, 0)
}

/// What a first attempt did to the player's puzzle rating.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rated {
    pub before: Glicko2Rating,
    pub after: Glicko2Rating,
}

/// One stored attempt, for the replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    pub seq: i64,
    pub player: String,
    pub puzzle: String,
    pub solved: bool,
    pub player_after: Glicko2Rating,
    pub puzzle_after: Glicko2Rating,
}

pub struct PuzzleStore {
    pool: Pool,
}

const SELECT_KEY: &str = "SELECT key FROM puzzle_key WHERE id = 1";
const INSERT_KEY: &str =
    "INSERT INTO puzzle_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING";
const SEED_PLAYER: &str = "INSERT INTO player_puzzle_ratings (player, rating, deviation, volatility, attempts, solved) \
                           VALUES ($1, $2, $3, $4, 0, 0) ON CONFLICT (player) DO NOTHING";
const SEED_PUZZLE: &str = "INSERT INTO puzzle_ratings (puzzle, rating, deviation, volatility, attempts, solved) \
                           VALUES ($1, $2, $3, $4, 0, 0) ON CONFLICT (puzzle) DO NOTHING";
const PLAYER_RATING: &str = "SELECT rating, deviation, volatility, attempts, solved FROM player_puzzle_ratings WHERE player = $1";
const PUZZLE_RATING: &str =
    "SELECT rating, deviation, volatility, attempts, solved FROM puzzle_ratings WHERE puzzle = $1";
const TRIED: &str = "SELECT seq FROM puzzle_attempts WHERE player = $1 AND puzzle = $2";
const INSERT_ATTEMPT: &str = "INSERT INTO puzzle_attempts (player, puzzle, answer, solved, at, rating, deviation, \
                              volatility, puzzle_rating, puzzle_deviation, puzzle_volatility) \
                              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
const UPDATE_PLAYER: &str = "UPDATE player_puzzle_ratings SET rating = $1, deviation = $2, volatility = $3, \
                             attempts = attempts + 1, solved = solved + $4 WHERE player = $5";
const UPDATE_PUZZLE: &str = "UPDATE puzzle_ratings SET rating = $1, deviation = $2, volatility = $3, \
                             attempts = attempts + 1, solved = solved + $4 WHERE puzzle = $5";
const ATTEMPTS_AFTER: &str = "SELECT seq, player, puzzle, solved, rating, deviation, volatility, puzzle_rating, \
                              puzzle_deviation, puzzle_volatility FROM puzzle_attempts WHERE seq > $1 ORDER BY seq LIMIT $2";
const PLAYERS_AFTER: &str = "SELECT player, rating, deviation, volatility FROM player_puzzle_ratings \
                             WHERE player > $1 ORDER BY player LIMIT $2";
const PUZZLES_AFTER: &str = "SELECT puzzle, rating, deviation, volatility FROM puzzle_ratings \
                             WHERE puzzle > $1 ORDER BY puzzle LIMIT $2";

/// The rows of a page the replay reads.
const PAGE: i64 = 500;

fn glicko(row: &impl RowLike, first: usize) -> Result<Glicko2Rating, sqlx::Error> {
    Ok(Glicko2Rating {
        rating: row.f64_at(first)?,
        deviation: row.f64_at(first + 1)?,
        volatility: row.f64_at(first + 2)?,
    })
}

impl PuzzleStore {
    /// Opens the store on the server's database (already migrated by the players' store).
    pub async fn open(url: &str) -> Result<PuzzleStore, PlayerError> {
        let pool = Pool::open(url, 2).await?;
        Ok(PuzzleStore { pool })
    }

    /// The key puzzle tickets are signed with: made by the first instance to ask, then read.
    pub async fn key(&self) -> Result<Vec<u8>, PlayerError> {
        let fresh = hex::encode(crate::secrets::random_bytes::<32>());
        let stored: String = on_pool!(self, |pool, _begin, _lock| {
            sqlx::query(INSERT_KEY).bind(&fresh).execute(pool).await?;
            sqlx::query(SELECT_KEY).fetch_one(pool).await?.try_get(0)?
        });
        hex::decode(&stored).map_err(|e| PlayerError::Corrupt(format!("puzzle key: {e}")))
    }

    /// The player's puzzle rating, attempts and puzzles solved; `None` before any attempt.
    pub async fn player_rating(
        &self,
        player: &str,
    ) -> Result<Option<(Glicko2Rating, i64, i64)>, PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(PLAYER_RATING)
                .bind(player)
                .fetch_optional(pool)
                .await?;
            Ok(row
                .map(|row| -> Result<_, sqlx::Error> {
                    Ok((glicko(&row, 0)?, row.i64_at(3)?, row.i64_at(4)?))
                })
                .transpose()?)
        })
    }

    /// The puzzle's rating now; `None` before its first rated attempt.
    pub async fn puzzle_rating(&self, puzzle: &str) -> Result<Option<Glicko2Rating>, PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            let row = sqlx::query(PUZZLE_RATING)
                .bind(puzzle)
                .fetch_optional(pool)
                .await?;
            Ok(row.map(|row| glicko(&row, 0)).transpose()?)
        })
    }

    /// Records `player`'s attempt at `puzzle` and rates it if it is their first; `None` when
    /// they had tried it before (nothing changes).
    pub async fn attempt(
        &self,
        player: &str,
        puzzle: &Puzzle,
        answer: u8,
        solved: bool,
        now: UnixMs,
    ) -> Result<Option<Rated>, PlayerError> {
        let start = rating::START;
        let seed = start_of(puzzle.difficulty);
        on_pool!(self, |pool, begin, lock| {
            let mut tx = pool.begin_with(begin).await?;
            let seed_row = |statement, key: &str, rating: Glicko2Rating| {
                sqlx::query(statement)
                    .bind(key.to_owned())
                    .bind(rating.rating)
                    .bind(rating.deviation)
                    .bind(rating.volatility)
            };
            seed_row(SEED_PLAYER, player, start)
                .execute(&mut *tx)
                .await?;
            seed_row(SEED_PUZZLE, &puzzle.id, seed)
                .execute(&mut *tx)
                .await?;
            let player_row = sqlx::query(sqlx::AssertSqlSafe(format!("{PLAYER_RATING}{lock}")))
                .bind(player)
                .fetch_one(&mut *tx)
                .await?;
            let puzzle_row = sqlx::query(sqlx::AssertSqlSafe(format!("{PUZZLE_RATING}{lock}")))
                .bind(&puzzle.id)
                .fetch_one(&mut *tx)
                .await?;
            let tried = sqlx::query(TRIED)
                .bind(player)
                .bind(&puzzle.id)
                .fetch_optional(&mut *tx)
                .await?;
            if tried.is_some() {
                tx.rollback().await?;
                return Ok(None);
            }
            let before = glicko(&player_row, 0)?;
            let (after, puzzle_after) = rate(before, glicko(&puzzle_row, 0)?, solved);
            sqlx::query(INSERT_ATTEMPT)
                .bind(player)
                .bind(&puzzle.id)
                .bind(i64::from(answer))
                .bind(i64::from(solved))
                .bind(now)
                .bind(after.rating)
                .bind(after.deviation)
                .bind(after.volatility)
                .bind(puzzle_after.rating)
                .bind(puzzle_after.deviation)
                .bind(puzzle_after.volatility)
                .execute(&mut *tx)
                .await?;
            for (statement, key, rating) in [
                (UPDATE_PLAYER, player, after),
                (UPDATE_PUZZLE, puzzle.id.as_str(), puzzle_after),
            ] {
                sqlx::query(statement)
                    .bind(rating.rating)
                    .bind(rating.deviation)
                    .bind(rating.volatility)
                    .bind(i64::from(solved))
                    .bind(key)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(Some(Rated { before, after }))
        })
    }

    async fn attempts_after(&self, seq: i64) -> Result<Vec<Attempt>, PlayerError> {
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(ATTEMPTS_AFTER)
                .bind(seq)
                .bind(PAGE)
                .fetch_all(pool)
                .await?;
            Ok(rows
                .iter()
                .map(|row| -> Result<Attempt, sqlx::Error> {
                    Ok(Attempt {
                        seq: row.i64_at(0)?,
                        player: row.text_at(1)?,
                        puzzle: row.text_at(2)?,
                        solved: row.i64_at(3)? != 0,
                        player_after: glicko(row, 4)?,
                        puzzle_after: glicko(row, 7)?,
                    })
                })
                .collect::<Result<_, _>>()?)
        })
    }

    /// A page of the current ratings of players (`puzzles` false) or puzzles, by key.
    async fn ratings_after(
        &self,
        puzzles: bool,
        after: &str,
    ) -> Result<Vec<(String, Glicko2Rating)>, PlayerError> {
        let statement = if puzzles {
            PUZZLES_AFTER
        } else {
            PLAYERS_AFTER
        };
        on_pool!(self, |pool, _begin, _lock| {
            let rows = sqlx::query(statement)
                .bind(after)
                .bind(PAGE)
                .fetch_all(pool)
                .await?;
            Ok(rows
                .iter()
                .map(|row| Ok((row.text_at(0)?, glicko(row, 1)?)))
                .collect::<Result<_, sqlx::Error>>()?)
        })
    }
}

/// The first stored puzzle rating the replay does not reproduce.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum PuzzleDifference {
    #[error("puzzle attempt {seq}: stored {stored:?}, replayed {replayed:?}")]
    Attempt {
        seq: i64,
        stored: (Glicko2Rating, Glicko2Rating),
        replayed: (Glicko2Rating, Glicko2Rating),
    },
    #[error("puzzle attempt {0}: the puzzle {1} is not in the shipped set")]
    UnknownPuzzle(i64, String),
    #[error("{0}'s current puzzle rating: stored {1:?}, replayed {2:?}")]
    Current(String, Glicko2Rating, Option<Glicko2Rating>),
}

/// How many attempts, players and puzzles the replay checked.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Verified {
    pub attempts: u64,
    pub players: u64,
    pub puzzles: u64,
}

/// Replays every attempt in order from the starting ratings and compares every stored number,
/// bit for bit: each attempt's ratings after it, then every current rating.
pub async fn verify(
    store: &PuzzleStore,
) -> Result<Result<Verified, PuzzleDifference>, PlayerError> {
    use std::collections::HashMap;
    let mut players: HashMap<String, Glicko2Rating> = HashMap::new();
    let mut rated: HashMap<String, Glicko2Rating> = HashMap::new();
    let mut verified = Verified::default();
    let mut seq = 0;
    loop {
        let page = store.attempts_after(seq).await?;
        let Some(last) = page.last() else { break };
        seq = last.seq;
        for attempt in &page {
            let Some(puzzle) = puzzles::shipped().iter().find(|p| p.id == attempt.puzzle) else {
                return Ok(Err(PuzzleDifference::UnknownPuzzle(
                    attempt.seq,
                    attempt.puzzle.clone(),
                )));
            };
            let player = *players.get(&attempt.player).unwrap_or(&rating::START);
            let before = *rated
                .get(&puzzle.id)
                .unwrap_or(&start_of(puzzle.difficulty));
            let replayed = rate(player, before, attempt.solved);
            let stored = (attempt.player_after, attempt.puzzle_after);
            if replayed != stored {
                return Ok(Err(PuzzleDifference::Attempt {
                    seq: attempt.seq,
                    stored,
                    replayed,
                }));
            }
            players.insert(attempt.player.clone(), replayed.0);
            rated.insert(puzzle.id.clone(), replayed.1);
            verified.attempts += 1;
        }
    }
    for (of_puzzles, replayed) in [(false, &players), (true, &rated)] {
        let mut after = String::new();
        loop {
            let page = store.ratings_after(of_puzzles, &after).await?;
            let Some((last, _)) = page.last() else { break };
            after = last.clone();
            for (key, stored) in page {
                let expected = replayed.get(&key).copied();
                if expected != Some(stored) {
                    return Ok(Err(PuzzleDifference::Current(key, stored, expected)));
                }
                if of_puzzles {
                    verified.puzzles += 1;
                } else {
                    verified.players += 1;
                }
            }
        }
    }
    Ok(Ok(verified))
}

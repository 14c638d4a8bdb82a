//! The statements both backends run (SQLite reads `$1` as PostgreSQL does), and the one
//! implementation of [`super::PlayerStore`] over them, instantiated per backend by
//! [`impl_player_store`]: the two differ only in their pool type, how a rating transaction
//! begins and how it locks the players' rows.

/// A statement reading players' rows in the order `player_row` decodes them.
macro_rules! select_players {
    ($rest:literal) => {
        concat!(
            "SELECT id, name, created_at, named_at, deleted_at, rating, deviation, volatility, ",
            "rated_at, wins, losses, draws FROM players ",
            $rest
        )
    };
}

pub const INSERT_PLAYER: &str = "INSERT INTO players (id, secret_hash, created_at, creator, rating, \
                                 deviation, volatility) VALUES ($1, $2, $3, $4, $5, $6, $7)";
pub const BY_SECRET: &str = select_players!("WHERE secret_hash = $1");
pub const BY_ID: &str = select_players!("WHERE id = $1");
pub const BY_NAME_KEY: &str = select_players!("WHERE name_key = $1");
pub const AFTER_ID: &str = select_players!("WHERE id > $1 ORDER BY id LIMIT $2");
pub const LEADERBOARD: &str = select_players!(
    "WHERE deleted_at IS NULL AND rated_at >= $1 AND deviation < $2 ORDER BY rating DESC, id LIMIT $3"
);
pub const SET_NAME: &str = "UPDATE players SET name = $1, name_key = $2, named_at = $3 \
                            WHERE id = $4 AND deleted_at IS NULL AND (named_at IS NULL OR named_at <= $5)";
pub const UPSERT_CODE: &str = "INSERT INTO transfer_codes (code_hash, player, expires_at) \
                               SELECT $1, id, $2 FROM players WHERE id = $3 AND deleted_at IS NULL \
                               ON CONFLICT (player) DO UPDATE SET code_hash = excluded.code_hash, \
                               expires_at = excluded.expires_at";
pub const TAKE_CODE: &str =
    "DELETE FROM transfer_codes WHERE code_hash = $1 RETURNING player, expires_at";
pub const SET_SECRET: &str =
    "UPDATE players SET secret_hash = $1 WHERE id = $2 AND deleted_at IS NULL";
pub const DELETE_PLAYER: &str = "UPDATE players SET secret_hash = NULL, name = NULL, name_key = NULL, \
                                 deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL";
pub const DELETE_CODES: &str = "DELETE FROM transfer_codes WHERE player = $1";
pub const OPEN_ROOM: &str = "INSERT INTO room_players (room, rated) VALUES ($1, $2)";
pub const BIND_BLACK: &str = "UPDATE room_players SET black = $1 WHERE room = $2 AND black IS NULL";
pub const BIND_WHITE: &str = "UPDATE room_players SET white = $1 WHERE room = $2 AND white IS NULL";
pub const ROOM_PLAYERS: &str = "SELECT rated, black, white FROM room_players WHERE room = $1";
pub const RATED_ROOM: &str = "SELECT seq FROM rated_games WHERE room = $1";
pub const ROOM_MODE: &str = "SELECT mode FROM rooms WHERE id = $1";
pub const GAME_EVENTS: &str = "SELECT v, at, kind, data FROM events WHERE room = $1 AND kind IN ('moved', 'game-over') ORDER BY v";
pub const ROOM_CHANGES: &str = "SELECT c.seq, c.rating_before, c.deviation_before, c.volatility_before, c.rating, \
                                c.deviation, c.volatility, c.player, g.black FROM rating_changes c \
                                JOIN rated_games g ON g.seq = c.seq WHERE g.room = $1";
pub const PAIR_GAMES: &str = "SELECT COUNT(*) FROM rated_games WHERE at > $3 AND \
                              ((black = $1 AND white = $2) OR (black = $2 AND white = $1))";
pub const INSERT_GAME: &str = "INSERT INTO rated_games (room, black, white, score, at) \
                               VALUES ($1, $2, $3, $4, $5) RETURNING seq";
pub const INSERT_CHANGE: &str = "INSERT INTO rating_changes (seq, player, rating_before, deviation_before, \
                                 volatility_before, rating, deviation, volatility) \
                                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
pub const UPDATE_RATING: &str = "UPDATE players SET rating = $1, deviation = $2, volatility = $3, \
                                 rated_at = $4, wins = wins + $5, losses = losses + $6, draws = draws + $7 \
                                 WHERE id = $8";
pub const HISTORY: &str = "SELECT c.seq, c.rating_before, c.deviation_before, c.volatility_before, c.rating, \
                           c.deviation, c.volatility, g.room, g.at, g.black, g.white, g.score FROM rating_changes c \
                           JOIN rated_games g ON g.seq = c.seq WHERE c.player = $1 ORDER BY c.seq DESC LIMIT $2";
/// A player's finished games, rated or casual: the `game-over` event gives the time and, for a
/// casual game, the winner (its `data` is decoded in Rust: the backends' JSON functions differ).
pub const RECENT_GAMES: &str = "SELECT rp.room, e.at, rp.black, rp.white, g.score, e.data FROM room_players rp \
                                JOIN events e ON e.room = rp.room AND e.kind = 'game-over' \
                                LEFT JOIN rated_games g ON g.room = rp.room \
                                WHERE rp.black = $1 OR rp.white = $1 ORDER BY e.at DESC, rp.room LIMIT $2";
pub const RATED_GAMES: &str = "SELECT seq, room, black, white, score, at FROM rated_games \
                               WHERE seq > $1 ORDER BY seq LIMIT $2";
pub const CHANGES: &str = "SELECT c.seq, c.rating_before, c.deviation_before, c.volatility_before, c.rating, \
                           c.deviation, c.volatility, c.player FROM rating_changes c WHERE c.seq = $1 ORDER BY c.player";

/// Implements [`super::PlayerStore`] for `$store`, whose `pool` field is a `$pool` of `$conn`s.
/// `$begin` starts a rating transaction; `$lock` ends the statement reading the two players'
/// rows. The rating itself is a function over a connection in a transaction (`rate_locked`),
/// so that the rooms' store runs it in the transaction of a game's `game-over`
/// (`rate_room`, through [`super::RateOnCommit`]).
macro_rules! impl_player_store {
    ($store:ty, $pool:ty, $conn:ty, $row:ty, $begin:expr, $lock:expr) => {
        use async_trait::async_trait;
        use skillratings::glicko2::Glicko2Rating;
        use sqlx::Row;

        use super::sql;
        use super::{
            Change, FinishedGame, HistoryRow, PlayerError, PlayerRow, PlayerStore, Rated,
            RatedGameRow, RecentGameRow, RoomPlayers, winner_of,
        };
        use crate::engine::Side;
        use crate::players::name::{Name, RENAME_INTERVAL_MS};
        use crate::players::rating::{self, Score, Standing};
        use crate::players::replay;
        use crate::protocol::UnixMs;
        use crate::secrets::TokenHash;
        use crate::store::StoredEvent;

        fn player_row(row: &$row) -> Result<PlayerRow, sqlx::Error> {
            Ok(PlayerRow {
                id: row.try_get(0)?,
                name: row.try_get(1)?,
                created_at: row.try_get(2)?,
                named_at: row.try_get(3)?,
                deleted_at: row.try_get(4)?,
                standing: Standing {
                    rating: Glicko2Rating {
                        rating: row.try_get(5)?,
                        deviation: row.try_get(6)?,
                        volatility: row.try_get(7)?,
                    },
                    rated_at: row.try_get(8)?,
                },
                wins: row.try_get(9)?,
                losses: row.try_get(10)?,
                draws: row.try_get(11)?,
            })
        }

        /// A row of [`sql::RATED_GAMES`].
        fn rated_game_row(row: &$row) -> Result<RatedGameRow, sqlx::Error> {
            Ok(RatedGameRow {
                seq: row.try_get(0)?,
                room: row.try_get(1)?,
                black: row.try_get(2)?,
                white: row.try_get(3)?,
                score: row.try_get(4)?,
                at: row.try_get(5)?,
            })
        }

        /// A change row: seq, then before and after (rating, deviation, volatility each).
        fn change_row(row: &$row) -> Result<Change, sqlx::Error> {
            let rating_from = |first: usize| -> Result<Glicko2Rating, sqlx::Error> {
                Ok(Glicko2Rating {
                    rating: row.try_get(first)?,
                    deviation: row.try_get(first + 1)?,
                    volatility: row.try_get(first + 2)?,
                })
            };
            Ok(Change {
                seq: row.try_get(0)?,
                before: rating_from(1)?,
                after: rating_from(4)?,
            })
        }

        async fn one_player(
            pool: &$pool,
            statement: &'static str,
            key: &[u8],
        ) -> Result<Option<PlayerRow>, PlayerError> {
            let row = sqlx::query(statement)
                .bind(key)
                .fetch_optional(pool)
                .await?;
            Ok(row.as_ref().map(player_row).transpose()?)
        }

        async fn one_player_by_text(
            pool: &$pool,
            statement: &'static str,
            key: &str,
        ) -> Result<Option<PlayerRow>, PlayerError> {
            let row = sqlx::query(statement)
                .bind(key)
                .fetch_optional(pool)
                .await?;
            Ok(row.as_ref().map(player_row).transpose()?)
        }

        /// Rates a finished game on `connection`, inside a transaction the caller commits
        /// (see the module doc): the players' rows locked, the pair's recent games counted.
        async fn rate_locked(
            connection: &mut $conn,
            game: &FinishedGame,
        ) -> Result<Rated, PlayerError> {
            let lock = format!("{} ORDER BY id{}", LOCK_PLAYERS, $lock);
            let rows = sqlx::query(sqlx::AssertSqlSafe(lock))
                .bind(&game.black)
                .bind(&game.white)
                .fetch_all(&mut *connection)
                .await?;
            let already = sqlx::query(sql::RATED_ROOM)
                .bind(&game.room)
                .fetch_optional(&mut *connection)
                .await?;
            if already.is_some() {
                return Ok(Rated::Already);
            }
            let standing_of = |id: &str| -> Result<Standing, PlayerError> {
                let row = rows
                    .iter()
                    .find(|row| row.try_get::<String, _>(0).ok().as_deref() == Some(id));
                let row = row.ok_or(PlayerError::UnknownPlayer)?;
                Ok(player_row(row)?.standing)
            };
            let (black, white) = (standing_of(&game.black)?, standing_of(&game.white)?);
            let recent: i64 = sqlx::query_scalar(sql::PAIR_GAMES)
                .bind(&game.black)
                .bind(&game.white)
                .bind(game.at - rating::PAIR_WINDOW_MS)
                .fetch_one(&mut *connection)
                .await?;
            if recent >= i64::from(rating::MAX_RATED_PER_PAIR) {
                return Ok(Rated::PairLimit);
            }
            let (black_after, white_after) = rating::rate(black, white, game.score, game.at);
            let seq: i64 = sqlx::query_scalar(sql::INSERT_GAME)
                .bind(&game.room)
                .bind(&game.black)
                .bind(&game.white)
                .bind(game.score.points())
                .bind(game.at)
                .fetch_one(&mut *connection)
                .await?;
            let sides = [
                (&game.black, black, black_after, game.score),
                (&game.white, white, white_after, game.score.flipped()),
            ];
            let mut changes = Vec::with_capacity(2);
            for (id, standing, after, score) in sides {
                let before = rating::at(standing, game.at);
                sqlx::query(sql::INSERT_CHANGE)
                    .bind(seq)
                    .bind(id)
                    .bind(before.rating)
                    .bind(before.deviation)
                    .bind(before.volatility)
                    .bind(after.rating)
                    .bind(after.deviation)
                    .bind(after.volatility)
                    .execute(&mut *connection)
                    .await?;
                sqlx::query(sql::UPDATE_RATING)
                    .bind(after.rating)
                    .bind(after.deviation)
                    .bind(after.volatility)
                    .bind(game.at)
                    .bind(i64::from(score == Score::Win))
                    .bind(i64::from(score == Score::Loss))
                    .bind(i64::from(score == Score::Draw))
                    .bind(id)
                    .execute(&mut *connection)
                    .await?;
                changes.push(Change { seq, before, after });
            }
            Ok(Rated::Changed([changes[0], changes[1]]))
        }

        /// Rates `room`'s game if it was created rated and the rule rates it, on a connection
        /// inside the transaction that appends its `game-over` ([`super::RateOnCommit`]);
        /// `None` when it is not rated.
        pub(super) async fn rate_room(
            connection: &mut $conn,
            room: &str,
        ) -> Result<Option<Rated>, PlayerError> {
            let seated = sqlx::query(sql::ROOM_PLAYERS)
                .bind(room)
                .fetch_optional(&mut *connection)
                .await?;
            let Some(seated) = seated.as_ref().map(room_players_row).transpose()? else {
                return Ok(None);
            };
            if !seated.rated {
                return Ok(None);
            }
            let mode: String = sqlx::query_scalar(sql::ROOM_MODE)
                .bind(room)
                .fetch_one(&mut *connection)
                .await?;
            let rows = sqlx::query(sql::GAME_EVENTS)
                .bind(room)
                .fetch_all(&mut *connection)
                .await?;
            let event = |row: &$row| -> Result<StoredEvent, sqlx::Error> {
                Ok(StoredEvent {
                    v: u64::try_from(row.try_get::<i64, _>(0)?).unwrap_or_default(),
                    at: row.try_get(1)?,
                    kind: row.try_get(2)?,
                    data: row.try_get(3)?,
                })
            };
            let events = rows.iter().map(event).collect::<Result<Vec<_>, _>>()?;
            let mode = mode.parse().map_err(|_| PlayerError::Corrupt(format!("room mode {mode:?}")))?;
            match replay::finished_game(room, mode, &seated, &events) {
                Ok(game) => Ok(Some(rate_locked(connection, &game).await?)),
                Err(why) => {
                    tracing::debug!(room, %why, "a rated room's game is not rated");
                    Ok(None)
                }
            }
        }

        fn room_players_row(row: &$row) -> Result<RoomPlayers, sqlx::Error> {
            Ok(RoomPlayers {
                rated: row.try_get::<i64, _>(0)? != 0,
                black: row.try_get(1)?,
                white: row.try_get(2)?,
            })
        }

        #[async_trait]
        impl PlayerStore for $store {
            async fn create_player(
                &self,
                id: &str,
                secret_hash: &TokenHash,
                creator: &str,
                now: UnixMs,
            ) -> Result<(), PlayerError> {
                let start = rating::START;
                sqlx::query(sql::INSERT_PLAYER)
                    .bind(id)
                    .bind(&secret_hash[..])
                    .bind(now)
                    .bind(creator)
                    .bind(start.rating)
                    .bind(start.deviation)
                    .bind(start.volatility)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn player_by_secret(
                &self,
                secret_hash: &TokenHash,
            ) -> Result<Option<PlayerRow>, PlayerError> {
                one_player(&self.pool, sql::BY_SECRET, secret_hash).await
            }

            async fn player(&self, id: &str) -> Result<Option<PlayerRow>, PlayerError> {
                one_player_by_text(&self.pool, sql::BY_ID, id).await
            }

            async fn player_named(&self, key: &str) -> Result<Option<PlayerRow>, PlayerError> {
                one_player_by_text(&self.pool, sql::BY_NAME_KEY, key).await
            }

            async fn set_name(
                &self,
                id: &str,
                name: &Name,
                now: UnixMs,
            ) -> Result<(), PlayerError> {
                let done = sqlx::query(sql::SET_NAME)
                    .bind(&name.display)
                    .bind(&name.key)
                    .bind(now)
                    .bind(id)
                    .bind(now - RENAME_INTERVAL_MS)
                    .execute(&self.pool)
                    .await;
                match done {
                    Err(error) if super::is_unique_violation(&error) => Err(PlayerError::NameTaken),
                    Err(error) => Err(error.into()),
                    Ok(done) if done.rows_affected() == 1 => Ok(()),
                    Ok(_) => match self.player(id).await? {
                        Some(player) if player.deleted_at.is_none() => {
                            Err(PlayerError::RenameTooSoon)
                        }
                        _ => Err(PlayerError::UnknownPlayer),
                    },
                }
            }

            async fn issue_transfer_code(
                &self,
                id: &str,
                code_hash: &TokenHash,
                expires_at: UnixMs,
            ) -> Result<(), PlayerError> {
                let done = sqlx::query(sql::UPSERT_CODE)
                    .bind(&code_hash[..])
                    .bind(expires_at)
                    .bind(id)
                    .execute(&self.pool)
                    .await?;
                if done.rows_affected() == 0 {
                    return Err(PlayerError::UnknownPlayer);
                }
                Ok(())
            }

            async fn redeem_transfer_code(
                &self,
                code_hash: &TokenHash,
                new_secret_hash: &TokenHash,
                now: UnixMs,
            ) -> Result<String, PlayerError> {
                let mut tx = self.pool.begin().await?;
                let taken = sqlx::query(sql::TAKE_CODE)
                    .bind(&code_hash[..])
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some(taken) = taken else {
                    return Err(PlayerError::BadCode);
                };
                let (player, expires_at): (String, UnixMs) = (taken.try_get(0)?, taken.try_get(1)?);
                if expires_at <= now {
                    // The spent code goes; the player is untouched.
                    tx.commit().await?;
                    return Err(PlayerError::ExpiredCode);
                }
                let moved = sqlx::query(sql::SET_SECRET)
                    .bind(&new_secret_hash[..])
                    .bind(&player)
                    .execute(&mut *tx)
                    .await?;
                if moved.rows_affected() == 0 {
                    return Err(PlayerError::UnknownPlayer);
                }
                tx.commit().await?;
                Ok(player)
            }

            async fn delete_player(&self, id: &str, now: UnixMs) -> Result<bool, PlayerError> {
                let mut tx = self.pool.begin().await?;
                let done = sqlx::query(sql::DELETE_PLAYER)
                    .bind(id)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(sql::DELETE_CODES)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(done.rows_affected() == 1)
            }

            async fn open_room(&self, room: &str, rated: bool) -> Result<(), PlayerError> {
                sqlx::query(sql::OPEN_ROOM)
                    .bind(room)
                    .bind(i64::from(rated))
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn bind_seat(
                &self,
                room: &str,
                side: Side,
                player: &str,
            ) -> Result<bool, PlayerError> {
                let done = sqlx::query(super::seat_column(side))
                    .bind(player)
                    .bind(room)
                    .execute(&self.pool)
                    .await?;
                Ok(done.rows_affected() == 1)
            }

            async fn room_players(&self, room: &str) -> Result<Option<RoomPlayers>, PlayerError> {
                let row = sqlx::query(sql::ROOM_PLAYERS)
                    .bind(room)
                    .fetch_optional(&self.pool)
                    .await?;
                Ok(row.as_ref().map(room_players_row).transpose()?)
            }

            async fn rate_game(&self, game: &FinishedGame) -> Result<Rated, PlayerError> {
                let mut tx = self.pool.begin_with($begin).await?;
                let rated = rate_locked(&mut tx, game).await?;
                tx.commit().await?;
                Ok(rated)
            }

            async fn room_changes(&self, room: &str) -> Result<Option<[Change; 2]>, PlayerError> {
                let rows = sqlx::query(sql::ROOM_CHANGES)
                    .bind(room)
                    .fetch_all(&self.pool)
                    .await?;
                let decode = |row: &$row| -> Result<(bool, Change), sqlx::Error> {
                    Ok((row.try_get::<String, _>(7)? == row.try_get::<String, _>(8)?, change_row(row)?))
                };
                let changes = rows.iter().map(decode).collect::<Result<Vec<_>, _>>()?;
                let of = |black: bool| changes.iter().find(|(b, _)| *b == black).map(|(_, c)| *c);
                Ok(of(true).zip(of(false)).map(|(black, white)| [black, white]))
            }

            async fn history(&self, id: &str, limit: u32) -> Result<Vec<HistoryRow>, PlayerError> {
                let rows = sqlx::query(sql::HISTORY)
                    .bind(id)
                    .bind(i64::from(limit))
                    .fetch_all(&self.pool)
                    .await?;
                let decode = |row: &$row| -> Result<HistoryRow, sqlx::Error> {
                    Ok(HistoryRow {
                        change: change_row(row)?,
                        room: row.try_get(7)?,
                        at: row.try_get(8)?,
                        black: row.try_get(9)?,
                        white: row.try_get(10)?,
                        score: row.try_get(11)?,
                    })
                };
                Ok(rows.iter().map(decode).collect::<Result<_, _>>()?)
            }

            async fn recent_games(
                &self,
                id: &str,
                limit: u32,
            ) -> Result<Vec<RecentGameRow>, PlayerError> {
                let rows = sqlx::query(sql::RECENT_GAMES)
                    .bind(id)
                    .bind(i64::from(limit))
                    .fetch_all(&self.pool)
                    .await?;
                let decode = |row: &$row| -> Result<RecentGameRow, PlayerError> {
                    let game_over: String = row.try_get(5)?;
                    Ok(RecentGameRow {
                        room: row.try_get(0)?,
                        at: row.try_get(1)?,
                        black: row.try_get(2)?,
                        white: row.try_get(3)?,
                        rated_score: row.try_get(4)?,
                        winner: winner_of(&game_over)?,
                    })
                };
                rows.iter().map(decode).collect()
            }

            async fn leaderboard(
                &self,
                since: UnixMs,
                limit: u32,
            ) -> Result<Vec<PlayerRow>, PlayerError> {
                let rows = sqlx::query(sql::LEADERBOARD)
                    .bind(since)
                    .bind(rating::PROVISIONAL_DEVIATION)
                    .bind(i64::from(limit))
                    .fetch_all(&self.pool)
                    .await?;
                Ok(rows.iter().map(player_row).collect::<Result<_, _>>()?)
            }

            async fn rated_games(
                &self,
                after: i64,
                limit: u32,
            ) -> Result<Vec<RatedGameRow>, PlayerError> {
                let rows = sqlx::query(sql::RATED_GAMES)
                    .bind(after)
                    .bind(i64::from(limit))
                    .fetch_all(&self.pool)
                    .await?;
                Ok(rows.iter().map(rated_game_row).collect::<Result<_, _>>()?)
            }

            async fn changes(&self, seq: i64) -> Result<Vec<(String, Change)>, PlayerError> {
                let rows = sqlx::query(sql::CHANGES)
                    .bind(seq)
                    .fetch_all(&self.pool)
                    .await?;
                let decode = |row: &$row| -> Result<(String, Change), sqlx::Error> {
                    Ok((row.try_get(7)?, change_row(row)?))
                };
                Ok(rows.iter().map(decode).collect::<Result<_, _>>()?)
            }

            async fn players_after(
                &self,
                after: &str,
                limit: u32,
            ) -> Result<Vec<PlayerRow>, PlayerError> {
                let rows = sqlx::query(sql::AFTER_ID)
                    .bind(after)
                    .bind(i64::from(limit))
                    .fetch_all(&self.pool)
                    .await?;
                Ok(rows.iter().map(player_row).collect::<Result<_, _>>()?)
            }
        }
    };
}

/// The two players of a rated game, read to be changed (each backend appends its lock).
pub const LOCK_PLAYERS: &str = select_players!("WHERE id IN ($1, $2)");

pub(super) use impl_player_store;

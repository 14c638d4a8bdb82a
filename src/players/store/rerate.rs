//! Re-rating when the rating parameters change: every stored number is a function of the
//! parameters (`rating::Parameters`), and `senet ratings verify` recomputes them with the ones in
//! use, so a database rated under another set is re-rated when the store opens — every rated
//! game again in its order, from the same results and times (which games are rated does not
//! depend on the parameters), every change and standing rewritten, never-rated players given
//! the new start — once, in one transaction holding the `rating_parameters` row (a second
//! instance starting at once waits, then finds the work done), logged in `audit`.
//!
//! Instances still running the old parameters would go on writing old numbers: stop them
//! before starting the new version (docs/RATINGS.md).

/// The set the stored numbers were computed with (each backend appends its lock).
pub const PARAMETERS_NAME: &str = "SELECT name FROM rating_parameters WHERE id = 1";
pub const SET_PARAMETERS: &str = "UPDATE rating_parameters SET name = $1, since = $2 WHERE id = 1";
pub const SET_CHANGE: &str = "UPDATE rating_changes SET rating_before = $1, deviation_before = $2, \
                              volatility_before = $3, rating = $4, deviation = $5, volatility = $6 \
                              WHERE seq = $7 AND player = $8";
pub const SET_STANDING: &str =
    "UPDATE players SET rating = $1, deviation = $2, volatility = $3 WHERE id = $4";
pub const SET_UNRATED: &str =
    "UPDATE players SET rating = $1, deviation = $2, volatility = $3 WHERE rated_at IS NULL";
pub const ANY_PLAYER: &str = "SELECT COUNT(*) FROM players";
pub const AUDIT: &str = "INSERT INTO audit (at, actor, action, target, reason) \
                         VALUES ($1, 'senet', 'ratings-rerate', $2, $3)";

/// Rated games read per page while re-rating.
pub const PAGE: i64 = 1_000;

/// Defines `rerate(pool)` for a backend: `$begin` starts the transaction, `$lock` ends the
/// statement reading the parameters' row (see the module doc). `Some(games)` when it re-rated.
macro_rules! impl_rerate {
    ($pool:ty, $db:ty, $begin:expr, $lock:expr) => {
        pub(super) async fn rerate(pool: &$pool) -> Result<Option<u64>, PlayerError> {
            use super::rerate as sql;
            use crate::players::rating::PARAMETERS;
            use crate::players::replay::Replay;

            let mut tx = pool.begin_with($begin).await?;
            let read = format!("{}{}", sql::PARAMETERS_NAME, $lock);
            let name: String = sqlx::query_scalar(sqlx::AssertSqlSafe(read))
                .fetch_one(&mut *tx)
                .await?;
            if name == PARAMETERS.name {
                return Ok(None);
            }
            let mut replay = Replay::default();
            let mut after = 0i64;
            loop {
                let rows = sqlx::query(super::sql::RATED_GAMES)
                    .bind(after)
                    .bind(sql::PAGE)
                    .fetch_all(&mut *tx)
                    .await?;
                let Some(last) = rows.last() else { break };
                after = rated_game_row(last)?.seq;
                for row in &rows {
                    let game = rated_game_row(row)?;
                    for (id, change) in replay.rerate(&game).map_err(PlayerError::Corrupt)? {
                        let (before, now) = (change.before, change.after);
                        sqlx::query(sql::SET_CHANGE)
                            .bind(before.rating)
                            .bind(before.deviation)
                            .bind(before.volatility)
                            .bind(now.rating)
                            .bind(now.deviation)
                            .bind(now.volatility)
                            .bind(change.seq)
                            .bind(id)
                            .execute(&mut *tx)
                            .await?;
                    }
                }
            }
            for (id, standing) in replay.standings() {
                set_standing(&mut tx, sql::SET_STANDING, &standing.rating, Some(id)).await?;
            }
            set_standing(&mut tx, sql::SET_UNRATED, &PARAMETERS.start, None).await?;
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |elapsed| elapsed.as_millis() as i64);
            sqlx::query(sql::SET_PARAMETERS)
                .bind(PARAMETERS.name)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            let players: i64 = sqlx::query_scalar(sql::ANY_PLAYER).fetch_one(&mut *tx).await?;
            // A new database has nothing to re-rate: no audit row and no re-rating logged for it.
            if players > 0 {
                sqlx::query(sql::AUDIT)
                    .bind(now)
                    .bind(format!("{} rated games", replay.games))
                    .bind(format!("rating parameters {name} -> {}", PARAMETERS.name))
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            if players > 0 {
                tracing::info!(games = replay.games, from = %name, to = PARAMETERS.name, "re-rated every rated game");
            }
            Ok(Some(replay.games))
        }

        /// Writes a rating to one player (`Some(id)`) or to every never-rated player.
        async fn set_standing(
            tx: &mut sqlx::Transaction<'_, $db>,
            statement: &'static str,
            rating: &skillratings::glicko2::Glicko2Rating,
            id: Option<&String>,
        ) -> Result<(), PlayerError> {
            let query = sqlx::query(statement)
                .bind(rating.rating)
                .bind(rating.deviation)
                .bind(rating.volatility);
            let query = match id {
                Some(id) => query.bind(id),
                None => query,
            };
            query.execute(&mut **tx).await?;
            Ok(())
        }
    };
}

pub(super) use impl_rerate;

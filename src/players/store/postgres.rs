//! [`super::PlayerStore`] on PostgreSQL, shared by every instance: a rating transaction locks
//! both players' rows `FOR UPDATE`, in id order so two games locking the same two players
//! never deadlock.

use std::str::FromStr;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions, PgRow};

use super::rerate::impl_rerate;
use super::sql::{LOCK_PLAYERS, impl_player_store};

/// Player requests are few beside a room's actions: a small pool of their own.
const MAX_CONNECTIONS: u32 = 4;

pub struct PgPlayers {
    pool: PgPool,
}

impl PgPlayers {
    /// Connects to the database at `url` and migrates it (the schema is the URL's search path).
    pub async fn open(url: &str) -> Result<PgPlayers, PlayerError> {
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(PgConnectOptions::from_str(url)?)
            .await?;
        crate::store::postgres::migrate(&pool).await?;
        rerate(&pool).await?;
        Ok(PgPlayers { pool })
    }
}

impl_player_store!(
    PgPlayers,
    PgPool,
    sqlx::PgConnection,
    PgRow,
    "BEGIN",
    " FOR UPDATE"
);

impl_rerate!(PgPool, sqlx::Postgres, "BEGIN", " FOR UPDATE");

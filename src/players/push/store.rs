//! The push tables (migration 0460) on both backends: the VAPID key, made by the first instance
//! to ask, and the devices' subscriptions, at most [`MAX_PER_PLAYER`] per player. The statements
//! are the same text on both (SQLite reads `$1` as PostgreSQL does).

use crate::players::pool::Pool;
use crate::players::store::PlayerError;
use crate::protocol::UnixMs;

/// A player's subscriptions (their devices) at most: lichess's order of magnitude, and a
/// stranger's identity cannot make the server hold more.
pub const MAX_PER_PLAYER: i64 = 10;

/// One device's subscription as the browser gave it (`PushSubscription.toJSON()`), checked.
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct Subscription {
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
}

/// Runs `$body` with `$pool` whichever backend's pool the store has.
macro_rules! on_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match &$store.pool {
            Pool::Sqlite($pool) => $body,
            Pool::Pg($pool) => $body,
        }
    };
}

pub struct PushStore {
    pool: Pool,
}

const INSERT_KEY: &str =
    "INSERT INTO vapid_key (id, private_key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING";
const SELECT_KEY: &str = "SELECT private_key FROM vapid_key WHERE id = 1";
const COUNT: &str = "SELECT COUNT(*) FROM push_subscriptions WHERE player = $1 AND endpoint <> $2";
/// A device that subscribes again (a new key, another player on it) replaces its row.
const UPSERT: &str = "INSERT INTO push_subscriptions (endpoint, player, p256dh, auth, created_at) \
                      VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint) DO UPDATE \
                      SET player = excluded.player, p256dh = excluded.p256dh, auth = excluded.auth, \
                      created_at = excluded.created_at";
const DELETE_OWN: &str = "DELETE FROM push_subscriptions WHERE endpoint = $1 AND player = $2";
const DELETE: &str = "DELETE FROM push_subscriptions WHERE endpoint = $1";
const DELETE_ALL: &str = "DELETE FROM push_subscriptions WHERE player = $1";
const OF_PLAYER: &str = "SELECT endpoint, p256dh, auth FROM push_subscriptions WHERE player = $1 \
                         ORDER BY created_at, endpoint";

impl PushStore {
    /// Connects to the database `url` names (migrated by the rooms' store before), on a small
    /// pool of its own: pushes are a trickle beside the game.
    pub async fn open(url: &str) -> Result<PushStore, PlayerError> {
        Ok(PushStore {
            pool: Pool::open(url, 2).await?,
        })
    }

    /// The stored VAPID private key; `fresh` is stored first if there is none (the first
    /// instance to start wins, and every instance signs with the same key).
    pub async fn key(&self, fresh: &str) -> Result<String, PlayerError> {
        Ok(on_pool!(self, |pool| {
            sqlx::query(INSERT_KEY).bind(fresh).execute(pool).await?;
            sqlx::query_scalar(SELECT_KEY).fetch_one(pool).await?
        }))
    }

    /// Keeps `player`'s subscription; `false` (nothing kept) when they have
    /// [`MAX_PER_PLAYER`] others already.
    pub async fn subscribe(
        &self,
        player: &str,
        subscription: &Subscription,
        now: UnixMs,
    ) -> Result<bool, PlayerError> {
        Ok(on_pool!(self, |pool| {
            let others: i64 = sqlx::query_scalar(COUNT)
                .bind(player)
                .bind(&subscription.endpoint)
                .fetch_one(pool)
                .await?;
            if others >= MAX_PER_PLAYER {
                return Ok(false);
            }
            sqlx::query(UPSERT)
                .bind(&subscription.endpoint)
                .bind(player)
                .bind(&subscription.p256dh)
                .bind(&subscription.auth)
                .bind(now)
                .execute(pool)
                .await?;
            true
        }))
    }

    /// Forgets `player`'s subscription at `endpoint`; whether there was one.
    pub async fn unsubscribe(&self, player: &str, endpoint: &str) -> Result<bool, PlayerError> {
        Ok(on_pool!(self, |pool| {
            let done = sqlx::query(DELETE_OWN)
                .bind(endpoint)
                .bind(player)
                .execute(pool)
                .await?;
            done.rows_affected() > 0
        }))
    }

    /// Forgets every subscription of a player (their identity deleted).
    pub async fn forget_player(&self, player: &str) -> Result<(), PlayerError> {
        on_pool!(self, |pool| {
            sqlx::query(DELETE_ALL).bind(player).execute(pool).await?;
        });
        Ok(())
    }

    /// Forgets the subscription at `endpoint`, whoever's (the push service said it is gone).
    pub async fn remove(&self, endpoint: &str) -> Result<(), PlayerError> {
        on_pool!(self, |pool| {
            sqlx::query(DELETE).bind(endpoint).execute(pool).await?;
        });
        Ok(())
    }

    /// A player's subscriptions, oldest first.
    pub async fn of_player(&self, player: &str) -> Result<Vec<Subscription>, PlayerError> {
        Ok(on_pool!(self, |pool| {
            sqlx::query_as(OF_PLAYER)
                .bind(player)
                .fetch_all(pool)
                .await?
        }))
    }
}

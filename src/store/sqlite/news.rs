//! News on SQLite: one instance writes the database, so nothing tells it of appends, except
//! those another process makes: `senet admin end` appends a room's `game-over` and `senet admin
//! hide` its `chat-hidden` (each with its audit row) from outside. The instance reads the audit
//! log for such appends every [`POLL`] and hears each as [`News::Appended`], as PostgreSQL's
//! instances hear each other's appends, so the players and spectators of a room held here are
//! told within seconds, without waiting for the room's next event.

use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::protocol::Version;
use crate::store::News;
use crate::store::bans::BanStore;

/// How often the audit log is read for the operator's appends (as often as the bans).
pub const POLL: Duration = Duration::from_secs(2);

/// Polls the database at `url` until `shutdown`, telling `news` of every room the operator
/// appends to from now on.
pub async fn poll_operator_appends(
    url: String,
    news: broadcast::Sender<News>,
    shutdown: CancellationToken,
) {
    let mut after = None;
    let mut every = tokio::time::interval(POLL);
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = every.tick() => {}
        }
        if let Err(error) = hear(&url, &mut after, &news).await {
            tracing::warn!(%error, "could not read the rooms the operator appended to");
        }
    }
}

/// One poll: the first (once the database answers) only notes where the audit log ends.
async fn hear(
    url: &str,
    after: &mut Option<(BanStore, i64)>,
    news: &broadcast::Sender<News>,
) -> Result<(), crate::store::bans::BansError> {
    let Some((store, last)) = after else {
        let store = BanStore::open(url).await?;
        let last = store.last_audit_id().await?;
        *after = Some((store, last));
        return Ok(());
    };
    for appended in store.appends_after(*last).await? {
        *last = appended.id;
        if let Some(v) = appended.v.and_then(|v| Version::try_from(v).ok()) {
            // Nobody subscribed is no error: the news is for whoever holds the room.
            let _ = news.send(News::Appended {
                room: appended.room,
                v,
            });
        }
    }
    Ok(())
}

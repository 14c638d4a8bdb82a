//! News on SQLite: one instance writes the database, so nothing tells it of appends, except
//! those another process makes: `senet admin end` appends a room's `game-over` (with its audit
//! row) from outside. The instance reads the audit log for such ends every [`POLL`] and hears
//! each as [`News::Appended`], as PostgreSQL's instances hear each other's appends, so the
//! players of a room held here are told within seconds.

use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::protocol::Version;
use crate::store::News;
use crate::store::bans::BanStore;

/// How often the audit log is read for rooms the operator ended (as often as the bans).
pub const POLL: Duration = Duration::from_secs(2);

/// Polls the database at `url` until `shutdown`, telling `news` of every room ended from now on.
pub async fn poll_operator_ends(
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
            tracing::warn!(%error, "could not read the rooms the operator ended");
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
    for ended in store.ends_after(*last).await? {
        *last = ended.id;
        if let Some(v) = ended.v.and_then(|v| Version::try_from(v).ok()) {
            // Nobody subscribed is no error: the news is for whoever holds the room.
            let _ = news.send(News::Appended {
                room: ended.room,
                v,
            });
        }
    }
    Ok(())
}

//! Several instances on one PostgreSQL: how an instance hears that another
//! one appended to a room it holds in memory (and, on the same channel, of
//! seeks and of other instances' spectators: [`News`]).
//!
//! [`PgStore::append`](crate::store::postgres::PgStore) sends `NOTIFY` on
//! [`CHANNEL`] in the appending transaction, with [`payload`] = room id and
//! the room's new last version. Each instance runs one [`Listener`]: a single
//! `LISTEN` connection that reconnects by itself with backoff (also when it
//! stops hearing its own [`Probe`]s) and passes what it hears to its
//! subscribers as [`News`]. The room registry subscribes and
//! tells the room "there is news up to v"; the room task then reads
//! `events_after(its v)` from the log and applies them in version order.
//!
//! Notifications are only hints; the log is the truth. So a notification can
//! be late, duplicated or about a room nobody here holds (several deployments
//! may share a database in different schemas, but channels are per
//! database) without harm. What must not happen is a room silently missing
//! one: whenever that is possible — the listening connection was lost and
//! re-made, or a subscriber fell behind — subscribers get [`News::Resync`]
//! and every held room re-reads its log.

use std::str::FromStr;
use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgListener, PgPoolOptions};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::super::{InstanceId, SeekChange};
use crate::protocol::{SeekGone, Version};
use crate::secrets::random_bytes;

/// The notification channel every instance of a database listens on.
pub const CHANNEL: &str = "senet_events";

/// The `application_name` of listening connections (unless the database URL
/// sets one), so operators and tests can find them in `pg_stat_activity`.
pub const LISTENER_APPLICATION_NAME: &str = "senet-listener";

/// Notifications buffered per subscriber before it counts as lagging (and so
/// gets [`News::Resync`] instead of the ones it missed).
const SUBSCRIBER_BUFFER: usize = 1024;

/// Waits between reconnection attempts: doubling from the first to the last.
const FIRST_BACKOFF: Duration = Duration::from_millis(100);
const LAST_BACKOFF: Duration = Duration::from_secs(10);

/// Starts the payload of a listener's probe (see [`Probe`]); room ids are
/// hex digits, so no news starts this way.
const PROBE: &str = "probe";

/// The payload of a notification: `"<room> <version>"` (room ids have no spaces).
pub fn payload(room: &str, v: Version) -> String {
    format!("{room} {v}")
}

/// Starts the payload of news about a seek (room ids are hex digits).
const SEEK: &str = "seek";
/// A seek's change when it was posted.
const OPENED: &str = "open";

/// The payload of a seek's notification: `"seek <room> <change>"`, the change being `open` or
/// why it went (`taken`, `cancelled`, `withdrawn`).
pub fn seek_payload(room: &str, change: SeekChange) -> String {
    let change = match change {
        SeekChange::Open => OPENED,
        SeekChange::Gone(why) => why.into(),
    };
    format!("{SEEK} {room} {change}")
}

/// Starts the payload of news about a tournament (tournament ids are hex digits too).
const TOURNAMENT: &str = "tournament";

/// The payload of a tournament's notification: `"tournament <id>"`.
pub fn tournament_payload(id: &str) -> String {
    format!("{TOURNAMENT} {id}")
}

/// Starts the payload of news about a challenge (issue 46): `"challenge <id>"`; the lobby reads
/// the challenge and tells its two players' pages held here.
const CHALLENGE: &str = "challenge";

/// The payload of a challenge's notification.
pub fn challenge_payload(id: &str) -> String {
    format!("{CHALLENGE} {id}")
}

/// Starts the payload of an instance's spectator counts, or its question for everyone's.
const WATCHERS: &str = "watchers";
/// Stands for the counts in a question for everyone's.
const ASKED: &str = "?";
/// PostgreSQL refuses payloads of 8,000 bytes or more.
const MAX_PAYLOAD: usize = 7_900;

/// The payloads that announce `instance`'s spectators in `counts` (room, how many; 0: none any
/// more): `"watchers <instance> <room>=<count> ..."`, as many rooms in each as fit.
pub fn spectators_payloads(instance: InstanceId, counts: &[(String, u32)]) -> Vec<String> {
    let head = format!("{WATCHERS} {instance:016x}");
    let mut payloads = Vec::new();
    let mut payload = head.clone();
    for (room, count) in counts {
        let entry = format!(" {room}={count}");
        if payload.len() + entry.len() > MAX_PAYLOAD {
            payloads.push(std::mem::replace(&mut payload, head.clone()));
        }
        payload.push_str(&entry);
    }
    if payload.len() > head.len() {
        payloads.push(payload);
    }
    payloads
}

/// The payload of `instance`'s question to every other: announce all your spectators again.
pub fn spectators_asked_payload(instance: InstanceId) -> String {
    format!("{WATCHERS} {instance:016x} {ASKED}")
}

/// What a subscriber hears.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum News {
    /// `room`'s log reaches at least version `v`.
    Appended { room: String, v: Version },
    /// A seek was posted or went (see `crate::store::seeks`): the lobby reads what it needs.
    Seek { room: String, change: SeekChange },
    /// How many spectators another instance (or this one) holds in some rooms, 0 for none any
    /// more (see `crate::room::watchers`).
    Spectators {
        instance: InstanceId,
        counts: Vec<(String, u32)>,
    },
    /// An instance asks every other to announce all its spectators again.
    SpectatorsAsked { instance: InstanceId },
    /// A tournament's log changed (see `crate::store::TournamentNews`).
    Tournament { id: String },
    /// A challenge was sent, answered, cancelled or expired (see `crate::lobby::challenges`).
    Challenge { id: String },
    /// Notifications may have been missed: every held room should read its
    /// log for events after its version (and the lobby its seeks).
    Resync,
}

impl News {
    /// Reads a notification's payload. Anything unreadable becomes
    /// [`News::Resync`]: re-reading every log is always safe.
    fn from_payload(text: &str) -> News {
        if let Some(seek) = text.strip_prefix(SEEK) {
            return Self::seek(seek).unwrap_or_else(|| Self::unreadable(text));
        }
        if let Some(id) = text.strip_prefix(TOURNAMENT) {
            return match id.strip_prefix(' ') {
                Some(id) if !id.is_empty() => News::Tournament { id: id.to_owned() },
                _ => Self::unreadable(text),
            };
        }
        if let Some(id) = text
            .strip_prefix(CHALLENGE)
            .and_then(|id| id.strip_prefix(' '))
        {
            let id = id.to_owned();
            return News::Challenge { id };
        }
        if let Some(counts) = text.strip_prefix(WATCHERS) {
            return Self::spectators(counts).unwrap_or_else(|| Self::unreadable(text));
        }
        let parsed = text
            .split_once(' ')
            .and_then(|(room, v)| Some((room, Version::from_str(v).ok()?)));
        match parsed {
            Some((room, v)) => News::Appended {
                room: room.to_owned(),
                v,
            },
            None => Self::unreadable(text),
        }
    }

    /// A seek's news from what follows [`SEEK`] in its payload.
    fn seek(text: &str) -> Option<News> {
        let (room, change) = text.strip_prefix(' ')?.split_once(' ')?;
        let change = match change {
            OPENED => SeekChange::Open,
            gone => SeekChange::Gone(SeekGone::from_str(gone).ok()?),
        };
        let room = room.to_owned();
        Some(News::Seek { room, change })
    }

    /// Spectator counts, or the question for them, from what follows [`WATCHERS`].
    fn spectators(text: &str) -> Option<News> {
        let mut words = text.strip_prefix(' ')?.split(' ');
        let instance = InstanceId::from_str_radix(words.next()?, 16).ok()?;
        let rest: Vec<&str> = words.collect();
        if rest == [ASKED] {
            return Some(News::SpectatorsAsked { instance });
        }
        let counts = rest
            .into_iter()
            .map(|entry| {
                let (room, count) = entry.split_once('=')?;
                Some((room.to_owned(), count.parse().ok()?))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(News::Spectators { instance, counts })
    }

    fn unreadable(text: &str) -> News {
        tracing::warn!(payload = text, "unreadable notification; resyncing rooms");
        News::Resync
    }
}

/// How the listener makes sure it still hears: every `every` it notifies
/// itself through another connection and expects to hear it within
/// `patience`. A connection that fell silent without an error (a dead
/// network path can keep TCP open for many minutes) is so dropped and made
/// again, like one that failed.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub every: Duration,
    pub patience: Duration,
}

impl Default for Probe {
    fn default() -> Self {
        Probe {
            every: Duration::from_secs(15),
            patience: Duration::from_secs(10),
        }
    }
}

/// One instance's ear on the database: hands [`News`] to every subscriber.
pub struct Listener {
    news: broadcast::Sender<News>,
}

impl Listener {
    /// Listens on the database `url` names until `shutdown`. For a database
    /// that is not PostgreSQL (a single SQLite instance has nobody to hear)
    /// the listener hears only the rooms `senet admin end` or `hide` appended to, by polling
    /// ([`crate::store::sqlite::news`]).
    pub fn start(url: &str, shutdown: CancellationToken) -> Listener {
        Self::start_with(url, Probe::default(), shutdown)
    }

    /// [`Listener::start`] with its own [`Probe`] timing.
    pub fn start_with(url: &str, probe: Probe, shutdown: CancellationToken) -> Listener {
        let (news, _) = broadcast::channel(SUBSCRIBER_BUFFER);
        if crate::store::is_postgres_url(url) {
            tokio::spawn(listen(url.to_owned(), probe, news.clone(), shutdown));
        } else {
            let poll = crate::store::sqlite::news::poll_operator_appends;
            tokio::spawn(poll(url.to_owned(), news.clone(), shutdown));
        }
        Listener { news }
    }

    pub fn subscribe(&self) -> Subscription {
        Subscription(self.news.subscribe())
    }
}

/// A subscriber's end; see [`Subscription::recv`].
pub struct Subscription(broadcast::Receiver<News>);

impl Subscription {
    /// The next news, [`News::Resync`] if this subscriber fell behind, or
    /// `None` once the listener is gone.
    pub async fn recv(&mut self) -> Option<News> {
        match self.0.recv().await {
            Ok(news) => Some(news),
            Err(broadcast::error::RecvError::Lagged(_)) => Some(News::Resync),
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }
}

/// Why a listening connection was given up.
#[derive(Debug, thiserror::Error)]
enum Lost {
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error("a probe was not heard back within {0:?}")]
    Deaf(Duration),
}

/// A listening connection, and a pool of one for sending probes.
struct Ear {
    listener: PgListener,
    probes: PgPool,
    /// Starts the payload of this ear's own probes (other instances probe
    /// on the same channel).
    probe_prefix: String,
}

/// Keeps a `LISTEN` connection until `shutdown`, re-making it with backoff
/// whenever it fails or falls silent.
async fn listen(
    url: String,
    probe: Probe,
    news: broadcast::Sender<News>,
    shutdown: CancellationToken,
) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        let connected = tokio::select! {
            () = shutdown.cancelled() => return,
            connected = connect(&url) => connected,
        };
        let error = match connected {
            Ok(mut ear) => {
                backoff = FIRST_BACKOFF;
                // Whatever was appended before LISTEN took effect was not heard.
                let _ = news.send(News::Resync);
                let (echoes, echoed) = watch::channel(String::new());
                // Either ending drops the other: the connection is given up.
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    error = relay(&mut ear.listener, &ear.probe_prefix, &news, &echoes) => error,
                    error = keep_probing(&ear.probes, &ear.probe_prefix, probe, echoed) => error,
                }
            }
            Err(error) => error.into(),
        };
        tracing::warn!(%error, retry_in = ?backoff, "database listener lost; reconnecting");
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(backoff) => {}
        }
        backoff = (backoff * 2).min(LAST_BACKOFF);
    }
}

async fn connect(url: &str) -> Result<Ear, sqlx::Error> {
    let mut options = PgConnectOptions::from_str(url)?;
    if options.get_application_name().is_none() {
        options = options.application_name(LISTENER_APPLICATION_NAME);
    }
    // A pool of one, only so that sqlx can re-make the connection itself.
    let pool = PgPoolOptions::new()
        .max_connections(1)
        .max_lifetime(None)
        .idle_timeout(None)
        .connect_with(options.clone())
        .await?;
    let mut listener = PgListener::connect_with(&pool).await?;
    listener.listen(CHANNEL).await?;
    let probes = PgPoolOptions::new()
        .max_connections(1)
        .connect_lazy_with(options);
    let probe_prefix = format!("{PROBE} {} ", hex::encode(random_bytes::<8>()));
    Ok(Ear {
        listener,
        probes,
        probe_prefix,
    })
}

/// Passes notifications on until the connection fails for good. This
/// ear's own probes go to `echoes` instead; other instances' are ignored.
async fn relay(
    listener: &mut PgListener,
    probe_prefix: &str,
    news: &broadcast::Sender<News>,
    echoes: &watch::Sender<String>,
) -> Lost {
    loop {
        let heard = match listener.try_recv().await {
            Ok(Some(notification)) => match notification.payload() {
                probe if probe.starts_with(probe_prefix) => {
                    echoes.send_replace(probe.to_owned());
                    continue;
                }
                probe if probe.starts_with(PROBE) => continue,
                payload => News::from_payload(payload),
            },
            // sqlx re-made a dropped connection and listens again; anything
            // sent in between is lost.
            Ok(None) => News::Resync,
            Err(error) => return error.into(),
        };
        // No subscriber yet is fine: nobody holds a room to update.
        let _ = news.send(heard);
    }
}

/// Sends a probe every `probe.every` and returns once one is not heard
/// back in time (or cannot be sent).
async fn keep_probing(
    probes: &PgPool,
    probe_prefix: &str,
    probe: Probe,
    mut echoed: watch::Receiver<String>,
) -> Lost {
    let mut sent_before = 0u64;
    loop {
        tokio::time::sleep(probe.every).await;
        let payload = format!("{probe_prefix}{sent_before}");
        sent_before += 1;
        // Sending counts against the patience too: its connection may hang
        // the same way.
        let round_trip = async {
            sqlx::query("SELECT pg_notify($1, $2)")
                .bind(CHANNEL)
                .bind(&payload)
                .execute(probes)
                .await?;
            let heard = echoed.wait_for(|echo| *echo == payload).await;
            heard.map(drop).map_err(|_| Lost::Deaf(probe.patience))
        };
        match tokio::time::timeout(probe.patience, round_trip).await {
            Ok(Ok(())) => {}
            Ok(Err(lost)) => return lost,
            Err(_) => return Lost::Deaf(probe.patience),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_read_back() {
        assert_eq!(
            News::from_payload(&payload("0123abcd", 42)),
            News::Appended {
                room: "0123abcd".into(),
                v: 42
            }
        );
        assert_eq!(News::from_payload("no-version"), News::Resync);
        let gone = SeekChange::Gone(SeekGone::Withdrawn);
        assert_eq!(
            News::from_payload(&seek_payload("0a1b", gone)),
            News::Seek {
                room: "0a1b".into(),
                change: gone
            }
        );
        assert_eq!(News::from_payload("seek 0a1b eaten"), News::Resync);
        assert_eq!(
            News::from_payload(&spectators_asked_payload(7)),
            News::SpectatorsAsked { instance: 7 }
        );
        assert_eq!(News::from_payload("watchers 7 0a1b=x"), News::Resync);
        assert_eq!(News::from_payload("room -1"), News::Resync);
        assert_eq!(
            News::from_payload(&tournament_payload("0a1b")),
            News::Tournament { id: "0a1b".into() }
        );
        assert_eq!(News::from_payload("tournament"), News::Resync);
    }

    /// Many rooms' counts go out in several payloads, each short enough for PostgreSQL, and
    /// read back as they went.
    #[test]
    fn spectator_counts_fit_in_payloads_and_read_back() {
        let counts: Vec<(String, u32)> =
            (0..500u32).map(|n| (format!("{n:032x}"), n % 7)).collect();
        let payloads = spectators_payloads(u64::MAX, &counts);
        assert!(payloads.len() > 1);
        let mut heard = Vec::new();
        for payload in &payloads {
            assert!(payload.len() <= MAX_PAYLOAD, "{}", payload.len());
            match News::from_payload(payload) {
                News::Spectators { instance, counts } => {
                    assert_eq!(instance, u64::MAX);
                    heard.extend(counts);
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(heard, counts);
        assert!(spectators_payloads(1, &[]).is_empty());
    }
}

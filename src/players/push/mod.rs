//! Web Push (issue 46): a player whose correspondence game becomes theirs to play is told on
//! every device they subscribed, with the site closed — RFC 8030 delivery, RFC 8291 message
//! encryption, RFC 8292 VAPID.
//!
//! **The crate.** `web-push-native` (RustCrypto: `p256`, `aes-gcm`, `hkdf`; `jwt-simple` for the
//! VAPID token) encrypts and signs and hands back an `http::Request`, which our own client sends
//! ([`send`]: hyper-util's, already a dependency, with rustls for https). The other candidate,
//! `web-push` (pimeys), needs OpenSSL through its `ece` crate and ships clients on hyper 0.14 /
//! http 0.2 or isahc (libcurl); `web-push-native` is current (0.5, 2026) on the `http` 1 stack we
//! run, with no C library to link.
//!
//! **When.** Every time a correspondence game's turn passes to a player (lichess does the same
//! for correspondence games), whether or not they have the site open: a tab that is open shows
//! the service worker's notification too, and a page does not notify again for a device that is
//! subscribed (web/js/your-turn.js). Live games push nothing: their player is at the board.
//!
//! **Off the hot path.** The room task hands a [`Notice`] (room and side) to a bounded queue
//! ([`Notices::turn`], `try_send`: a full queue drops the notice and counts it); one task reads
//! the queue, finds the player and their subscriptions, and sends each on a task of its own (at
//! most [`CONCURRENT`] at once), retrying 429 and 5xx with backoff; a 404 or 410 removes the
//! subscription. At most `--push-per-minute` notifications leave the server in any minute.
//!
//! **No secret in a payload.** It carries the room's page path and the opponent's shown name:
//! `{"room": "/r/…", "opponent": "Boris"}`; the room id is in every link anyway, never a seat
//! token or a player's secret.

pub mod send;
pub mod store;

use std::sync::Arc;
use std::time::Duration;

use base64ct::{Base64UrlUnpadded, Encoding};
use tokio::sync::mpsc;
use web_push_native::jwt_simple::algorithms::{ECDSAP256PublicKeyLike, ES256KeyPair};

pub use self::store::{MAX_PER_PLAYER, PushStore, Subscription};
use crate::engine::Side;
use crate::players::store::PlayerError;

/// Notices waiting for the sender at most; more are dropped (and counted).
pub const QUEUE: usize = 1024;
/// Deliveries in flight at once.
pub const CONCURRENT: usize = 16;
/// The longest push endpoint kept (the push services' are about 200 bytes).
pub const MAX_ENDPOINT_BYTES: usize = 1024;
/// Notifications sent per minute by default (`--push-per-minute`).
pub const DEFAULT_PER_MINUTE: u32 = 600;

/// How the server pushes; fixed at start (`senet serve`'s `--vapid-*` and `--push-*` flags).
#[derive(Clone, Debug)]
pub struct PushConfig {
    /// The operator's VAPID private key (the P-256 scalar, base64url); `None`: the database's,
    /// made at the first start.
    pub vapid_private_key: Option<String>,
    /// Who runs the server, for the push services (`mailto:` or `https:`), in the VAPID token.
    pub vapid_subject: String,
    /// Notifications sent per minute at most, over the whole server.
    pub per_minute: u32,
    /// Accept `http:` push endpoints (a local test push service); production ones are https.
    pub allow_http: bool,
    /// How long one request to a push service may take.
    pub timeout: Duration,
}

impl Default for PushConfig {
    fn default() -> Self {
        PushConfig {
            vapid_private_key: None,
            vapid_subject: "mailto:operator@localhost".into(),
            per_minute: DEFAULT_PER_MINUTE,
            allow_http: false,
            timeout: Duration::from_secs(10),
        }
    }
}

/// A subscription refused, in words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PushRefusal {
    #[error("the endpoint must be an https URL of at most 1024 bytes")]
    BadEndpoint,
    #[error("keys.p256dh must be a P-256 public key and keys.auth 16 bytes, both base64url")]
    BadKeys,
    #[error("a player may subscribe at most 10 devices: unsubscribe one first")]
    TooMany,
}

/// A correspondence game's turn passed to `side`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Notice {
    pub room: String,
    pub side: Side,
}

/// Where the rooms hand their notices; `Default`: nowhere (tests of the room alone).
#[derive(Clone, Debug, Default)]
pub struct Notices(Option<mpsc::Sender<Notice>>);

impl Notices {
    /// Queues a notice without waiting: a full queue drops it (counted as `queue`).
    pub fn turn(&self, room: &str, side: Side) {
        let Some(queue) = &self.0 else { return };
        let notice = Notice {
            room: room.to_owned(),
            side,
        };
        if let Err(mpsc::error::TrySendError::Full(_)) = queue.try_send(notice) {
            crate::telemetry::push_sent("queue");
        }
    }
}

/// The server's VAPID key and the subscriptions.
pub struct Push {
    pub store: PushStore,
    key: ES256KeyPair,
    /// The public key as the browser's `applicationServerKey` takes it (base64url, 65 bytes).
    public: String,
    config: PushConfig,
}

impl Push {
    /// Opens the push tables and takes the VAPID key: the operator's, else the database's (made
    /// now if this is the first start).
    pub async fn open(url: &str, config: PushConfig) -> Result<Push, PlayerError> {
        let store = PushStore::open(url).await?;
        let encoded = match &config.vapid_private_key {
            Some(given) => given.clone(),
            None => {
                let fresh = Base64UrlUnpadded::encode_string(&ES256KeyPair::generate().to_bytes());
                store.key(&fresh).await?
            }
        };
        let key = Base64UrlUnpadded::decode_vec(&encoded)
            .ok()
            .and_then(|bytes| ES256KeyPair::from_bytes(&bytes).ok())
            .ok_or_else(|| {
                PlayerError::Corrupt("the VAPID private key is not a P-256 key".into())
            })?;
        let public = Base64UrlUnpadded::encode_string(
            &key.public_key().public_key().to_bytes_uncompressed(),
        );
        Ok(Push {
            store,
            key,
            public,
            config,
        })
    }

    /// The public key pages subscribe with.
    pub fn public_key(&self) -> &str {
        &self.public
    }

    /// A subscription as a browser sent it, checked: an https endpoint (http too with
    /// `allow_http`) and keys that make a P-256 point and a 16-byte secret.
    pub fn check(
        &self,
        endpoint: &str,
        p256dh: &str,
        auth: &str,
    ) -> Result<Subscription, PushRefusal> {
        let uri: hyper::Uri = endpoint.parse().map_err(|_| PushRefusal::BadEndpoint)?;
        let scheme_ok = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => self.config.allow_http,
            _ => false,
        };
        if !scheme_ok || uri.host().is_none() || endpoint.len() > MAX_ENDPOINT_BYTES {
            return Err(PushRefusal::BadEndpoint);
        }
        send::keys_of(p256dh, auth).ok_or(PushRefusal::BadKeys)?;
        Ok(Subscription {
            endpoint: endpoint.to_owned(),
            p256dh: p256dh.to_owned(),
            auth: auth.to_owned(),
        })
    }

    /// Starts the sender, until `shutdown`; the rooms' handle on its queue.
    pub fn start(
        self: Arc<Self>,
        players: Arc<dyn crate::players::store::PlayerStore>,
        tracker: tokio_util::task::TaskTracker,
        shutdown: tokio_util::sync::CancellationToken,
    ) -> Notices {
        let (queue, notices) = mpsc::channel(QUEUE);
        let sender = send::Sender::new(self, players);
        tracker.spawn(sender.run(notices, tracker.clone(), shutdown));
        Notices(Some(queue))
    }
}

//! Sending: one task reads the notices, finds whose turn it is and their devices, and delivers
//! to each on a task of its own, at most [`super::CONCURRENT`] at once. A delivery is one
//! encrypted, VAPID-signed POST (`web-push-native` builds it) on hyper-util's client over rustls,
//! which speaks https and, for a local test push service, http. 429 and 5xx are tried again
//! after 1, 2 and 4 s (or the service's `Retry-After`, up to a minute); 404 and 410 mean the
//! subscription is gone, and it is removed; any other answer is given up at once.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use base64ct::{Base64UrlUnpadded, Encoding};
use bytes::Bytes;
use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use http_body_util::Full;
use hyper::StatusCode;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::sync::{Semaphore, mpsc};
use web_push_native::p256::PublicKey;
use web_push_native::{Auth, WebPushBuilder};

use super::{Notice, Push, Subscription};
use crate::engine::Side;
use crate::players::shown;
use crate::players::store::PlayerStore;
use crate::telemetry::push_sent;

/// Tries after the first, for a 429, a 5xx or no answer.
const RETRIES: u32 = 3;
/// The longest `Retry-After` waited for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// A subscription's keys, decoded: `None` if they are not a P-256 point and 16 bytes.
pub(super) fn keys_of(p256dh: &str, auth: &str) -> Option<(PublicKey, Auth)> {
    let public = PublicKey::from_sec1_bytes(&Base64UrlUnpadded::decode_vec(p256dh).ok()?).ok()?;
    let auth = Base64UrlUnpadded::decode_vec(auth).ok()?;
    (auth.len() == 16).then(|| (public, Auth::clone_from_slice(&auth)))
}

pub(super) struct Sender {
    push: Arc<Push>,
    players: Arc<dyn PlayerStore>,
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    rate: DefaultDirectRateLimiter,
    in_flight: Arc<Semaphore>,
}

/// What became of one delivery.
enum Outcome {
    Sent,
    Gone,
    Failed,
}

impl Sender {
    pub(super) fn new(push: Arc<Push>, players: Arc<dyn PlayerStore>) -> Arc<Sender> {
        let https = hyper_rustls::HttpsConnectorBuilder::new()
            .with_webpki_roots()
            .https_or_http()
            .enable_http1()
            .build();
        let per_minute = NonZeroU32::new(push.config.per_minute).unwrap_or(NonZeroU32::MIN);
        Arc::new(Sender {
            client: Client::builder(TokioExecutor::new()).build(https),
            rate: RateLimiter::direct(Quota::per_minute(per_minute)),
            in_flight: Arc::new(Semaphore::new(super::CONCURRENT)),
            push,
            players,
        })
    }

    pub(super) async fn run(
        self: Arc<Self>,
        mut notices: mpsc::Receiver<Notice>,
        tracker: tokio_util::task::TaskTracker,
        shutdown: tokio_util::sync::CancellationToken,
    ) {
        while let Some(Some(notice)) = shutdown.run_until_cancelled(notices.recv()).await {
            let Ok(permit) = self.in_flight.clone().acquire_owned().await else {
                return;
            };
            let sender = self.clone();
            let shutdown = shutdown.clone();
            tracker.spawn(async move {
                // A shutdown drops the deliveries in flight (a retry may wait a minute).
                let notified = shutdown.run_until_cancelled(sender.notify(&notice)).await;
                if let Some(Err(error)) = notified {
                    tracing::warn!(%error, room = %notice.room, "could not prepare a push");
                }
                drop(permit);
            });
        }
    }

    /// Tells the player to move in `notice`'s room on each of their devices.
    async fn notify(&self, notice: &Notice) -> Result<(), crate::players::store::PlayerError> {
        let Some(mut seats) = self.players.room_players(&notice.room).await? else {
            return Ok(());
        };
        if seats.black.is_none() || seats.white.is_none() {
            // A game starts as its second seat is taken, and the join binds that seat to its
            // player just after: read the seats again once it has.
            tokio::time::sleep(Duration::from_millis(500)).await;
            seats = self
                .players
                .room_players(&notice.room)
                .await?
                .unwrap_or(seats);
        }
        let (mover, other) = match notice.side {
            Side::Black => (seats.black, seats.white),
            Side::White => (seats.white, seats.black),
        };
        let Some(mover) = mover else { return Ok(()) };
        let opponent = match other {
            Some(id) => self
                .players
                .player(&id)
                .await?
                .map(|row| shown::player_ref(&row).name),
            None => None,
        };
        let payload = serde_json::json!({
            "room": format!("/r/{}", notice.room),
            "opponent": opponent,
        })
        .to_string();
        for subscription in self.push.store.of_player(&mover).await? {
            if self.rate.check().is_err() {
                push_sent("rate");
                continue;
            }
            let outcome = self.deliver(&subscription, &payload).await;
            push_sent(match outcome {
                Outcome::Sent => "sent",
                Outcome::Gone => "gone",
                Outcome::Failed => "failed",
            });
            if let Outcome::Gone = outcome {
                self.push.store.remove(&subscription.endpoint).await?;
            }
        }
        Ok(())
    }

    /// One encrypted, signed message to one device, tried again on 429, 5xx or no answer.
    async fn deliver(&self, subscription: &Subscription, payload: &str) -> Outcome {
        let Some((public, auth)) = keys_of(&subscription.p256dh, &subscription.auth) else {
            return Outcome::Gone; // checked when kept: a row changed by hand
        };
        let Ok(endpoint) = subscription.endpoint.parse() else {
            return Outcome::Gone;
        };
        let config = &self.push.config;
        let builder = WebPushBuilder::new(endpoint, public, auth)
            .with_vapid(&self.push.key, &config.vapid_subject);
        let mut wait = Duration::from_secs(1);
        for attempt in 0..=RETRIES {
            let request = match builder.build(payload.as_bytes()) {
                Ok(request) => request.map(|body| Full::new(Bytes::from(body))),
                Err(error) => {
                    tracing::warn!(%error, "could not encrypt a push");
                    return Outcome::Failed;
                }
            };
            let answer = tokio::time::timeout(config.timeout, self.client.request(request)).await;
            let retry_after = match answer {
                Ok(Ok(response)) => {
                    let status = response.status();
                    if status.is_success() {
                        return Outcome::Sent;
                    }
                    if status == StatusCode::NOT_FOUND || status == StatusCode::GONE {
                        return Outcome::Gone;
                    }
                    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
                        tracing::warn!(%status, "a push service refused a push");
                        return Outcome::Failed;
                    }
                    response
                        .headers()
                        .get(hyper::header::RETRY_AFTER)
                        .and_then(|value| value.to_str().ok()?.parse().ok())
                        .map(Duration::from_secs)
                }
                Ok(Err(error)) => {
                    tracing::debug!(%error, attempt, "a push service did not answer");
                    None
                }
                Err(_) => None,
            };
            if attempt < RETRIES {
                tokio::time::sleep(retry_after.unwrap_or(wait).min(MAX_RETRY_AFTER)).await;
                wait *= 2;
            }
        }
        Outcome::Failed
    }
}

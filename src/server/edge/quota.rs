//! Quotas per client address ([`ClientAddr`]) as one route layer ([`enforce`]): `governor`'s
//! keyed limiter, one for creating rooms (and seeks, and quick pairings), one for joining
//! them (and taking seeks), one for creating players and redeeming their transfer codes. Each address may make `burst` requests at once, then `per_minute`;
//! past that the request never reaches its handler and is answered 429 with `Retry-After`. The
//! key is the client address the edge resolved (`--trusted-proxies`), which it puts on every
//! request.
//!
//! The limiter's map is bounded: the addresses whose state says nothing a new one would not
//! (full again) are dropped ([`governor::RateLimiter::retain_recent`]) whenever the map has
//! doubled since the last sweep; what remains are the addresses active within the last
//! `burst / per_minute` minutes. Past [`MAX_CLIENTS`] of those, requests wait
//! [`CROWDED_RETRY`] until a sweep makes room (a flood from that many addresses is not a
//! player's).

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Extension;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, RateLimiter};

use super::client::ClientAddr;
use crate::server::error::AppError;

/// Addresses tracked at most.
const MAX_CLIENTS: usize = 100_000;
/// The map's size that triggers the first sweep.
const FIRST_SWEEP: usize = 1024;
/// What a request is told while [`MAX_CLIENTS`] are tracked.
const CROWDED_RETRY: Duration = Duration::from_secs(1);

/// The server's quotas.
#[derive(Debug)]
pub struct Quotas {
    /// `POST /api/rooms`, `POST /api/seeks`, `POST /api/pairing`.
    pub create: Arc<Quota>,
    /// `POST /api/rooms/{id}/join`, `POST /api/seeks/{id}/take`.
    pub join: Arc<Quota>,
    /// `POST /api/me` and `POST /api/me/redeem` (what bounds guessing transfer codes): new
    /// identities, each of which may chat as a spectator, so far fewer than rooms (issue 44;
    /// `--identify-burst`, `--identify-per-hour`).
    pub identify: Arc<Quota>,
    /// `POST /api/classes/join`: what paces guessing a class's code (`--class-join-burst`).
    pub class_join: Arc<Quota>,
}

/// One quota: a limiter keyed by client address; `None` is no quota (a burst of 0).
#[derive(Debug)]
pub struct Quota {
    limiter: Option<DefaultKeyedRateLimiter<ClientAddr>>,
    sweep_at: AtomicUsize,
}

impl Quota {
    /// `burst` requests at once, then `per_minute` (at least 1); a burst of 0 is no quota.
    pub fn new(burst: u32, per_minute: u32) -> Quota {
        Quota::per_period(burst, per_minute, Duration::from_secs(60))
    }

    /// `burst` requests at once, then `per_hour` (at least 1); a burst of 0 is no quota.
    pub fn per_hour(burst: u32, per_hour: u32) -> Quota {
        Quota::per_period(burst, per_hour, Duration::from_secs(3600))
    }

    /// `burst` requests at once, then `count` (at least 1) each `period`.
    fn per_period(burst: u32, count: u32, period: Duration) -> Quota {
        let limiter = NonZeroU32::new(burst).map(|burst| {
            let every = period / count.max(1);
            let quota = governor::Quota::with_period(every).expect("a period of at least 1 ms");
            RateLimiter::keyed(quota.allow_burst(burst))
        });
        Quota {
            limiter,
            sweep_at: AtomicUsize::new(FIRST_SWEEP),
        }
    }

    /// Takes one request from `client`'s allowance, or says how long until it may ask again.
    pub fn take(&self, client: ClientAddr) -> Result<(), Duration> {
        let Some(limiter) = &self.limiter else {
            return Ok(());
        };
        if limiter.len() >= self.sweep_at.load(Ordering::Relaxed) {
            limiter.retain_recent();
            limiter.shrink_to_fit();
            let next = FIRST_SWEEP.max(2 * limiter.len());
            self.sweep_at.store(next, Ordering::Relaxed);
        }
        if limiter.len() >= MAX_CLIENTS {
            return Err(CROWDED_RETRY);
        }
        limiter
            .check_key(&client)
            .map_err(|not_until| not_until.wait_time_from(DefaultClock::default().now()))
    }
}

/// The route layer: answers 429 with `Retry-After` for a client past `quota`, before the
/// handler (or its body) is read.
pub async fn enforce(
    State(quota): State<Arc<Quota>>,
    Extension(client): Extension<ClientAddr>,
    request: Request,
    next: Next,
) -> Result<Response, AppError> {
    quota.take(client).map_err(AppError::RateLimited)?;
    Ok(next.run(request).await)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(n: u32) -> ClientAddr {
        ClientAddr(std::net::Ipv4Addr::from(n).into())
    }

    #[test]
    fn a_burst_then_the_rate_and_each_address_on_its_own() {
        let quota = Quota::new(3, 60);
        for _ in 0..3 {
            assert_eq!(quota.take(client(1)), Ok(()));
        }
        let wait = quota.take(client(1)).unwrap_err();
        assert!(
            wait > Duration::from_millis(800) && wait <= Duration::from_secs(1),
            "{wait:?}"
        );
        assert_eq!(quota.take(client(2)), Ok(()));
    }

    #[test]
    fn zero_burst_is_no_quota() {
        let quota = Quota::new(0, 1);
        assert!((0..1000).all(|_| quota.take(client(1)).is_ok()));
        assert!(quota.limiter.is_none());
    }

    #[test]
    fn addresses_back_to_a_full_allowance_are_swept_so_the_map_stays_bounded() {
        // 60,000 a minute: each address is full again a millisecond after its request.
        let quota = Quota::new(1, 60_000);
        for n in 0..(FIRST_SWEEP as u32) {
            quota.take(client(n)).unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
        quota.take(client(u32::MAX)).unwrap();
        let limiter = quota.limiter.as_ref().unwrap();
        assert_eq!(limiter.len(), 1);
        assert_eq!(quota.sweep_at.load(Ordering::Relaxed), FIRST_SWEEP);
    }
}

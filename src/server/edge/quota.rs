//! Quotas per client address ([`ClientAddr`]): a token bucket for creating rooms and one for
//! joining them. A bucket holds up to `burst` tokens, refills at `per_minute`, and each request
//! takes one; an empty bucket answers how long until the next token (429 with `Retry-After`).
//!
//! The buckets are bounded: a full bucket says nothing a new one would not, so full buckets
//! are dropped whenever the map has doubled since the last sweep; what remains are the
//! addresses active within the last `burst / per_minute` minutes. Past [`MAX_CLIENTS`] of
//! those, new addresses wait too (a flood from that many addresses is not a player's).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::client::ClientAddr;

/// Addresses with a bucket at most.
const MAX_CLIENTS: usize = 100_000;
/// The map's size that triggers the first sweep of full buckets.
const FIRST_SWEEP: usize = 1024;
/// What a new address is told while [`MAX_CLIENTS`] are tracked.
const CROWDED_RETRY: Duration = Duration::from_secs(1);

/// The server's quotas.
#[derive(Debug)]
pub struct Quotas {
    /// `POST /api/rooms`.
    pub create: Quota,
    /// `POST /api/rooms/{id}/join`.
    pub join: Quota,
}

/// One quota: a bucket per client address.
#[derive(Debug)]
pub struct Quota {
    burst: f64,
    per_second: f64,
    buckets: Mutex<Buckets>,
}

#[derive(Debug)]
struct Buckets {
    by_client: HashMap<ClientAddr, Bucket>,
    sweep_at: usize,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Quota {
    /// `burst` requests at once, then `per_minute` (at least 1); a burst of 0 is no quota.
    pub fn new(burst: u32, per_minute: u32) -> Quota {
        Quota {
            burst: f64::from(burst),
            per_second: f64::from(per_minute.max(1)) / 60.0,
            buckets: Mutex::new(Buckets {
                by_client: HashMap::new(),
                sweep_at: FIRST_SWEEP,
            }),
        }
    }

    /// Takes a token from `client`'s bucket, or says how long until there is one.
    pub fn take(&self, client: ClientAddr) -> Result<(), Duration> {
        self.take_at(client, Instant::now())
    }

    fn take_at(&self, client: ClientAddr, now: Instant) -> Result<(), Duration> {
        if self.burst == 0.0 {
            return Ok(());
        }
        let mut buckets = self.buckets.lock().expect("never poisoned");
        if buckets.by_client.len() >= buckets.sweep_at {
            self.sweep(&mut buckets, now);
        }
        if buckets.by_client.len() >= MAX_CLIENTS && !buckets.by_client.contains_key(&client) {
            return Err(CROWDED_RETRY);
        }
        let full = Bucket {
            tokens: self.burst,
            at: now,
        };
        let bucket = buckets.by_client.entry(client).or_insert(full);
        bucket.tokens = self.refilled(*bucket, now);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64(
                (1.0 - bucket.tokens) / self.per_second,
            ))
        }
    }

    fn refilled(&self, bucket: Bucket, now: Instant) -> f64 {
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        (bucket.tokens + elapsed * self.per_second).min(self.burst)
    }

    /// Drops the full buckets; the next sweep comes when the map has doubled.
    fn sweep(&self, buckets: &mut Buckets, now: Instant) {
        buckets
            .by_client
            .retain(|_, bucket| self.refilled(*bucket, now) < self.burst);
        buckets.sweep_at = FIRST_SWEEP.max(2 * buckets.by_client.len());
    }
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
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(quota.take_at(client(1), start), Ok(()));
        }
        let wait = quota.take_at(client(1), start).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        assert_eq!(quota.take_at(client(2), start), Ok(()));
        let later = start + Duration::from_secs(1);
        assert_eq!(quota.take_at(client(1), later), Ok(()));
        assert!(quota.take_at(client(1), later).is_err());
    }

    #[test]
    fn zero_burst_is_no_quota() {
        let quota = Quota::new(0, 1);
        let now = Instant::now();
        assert!((0..1000).all(|_| quota.take_at(client(1), now).is_ok()));
        assert!(quota.buckets.lock().unwrap().by_client.is_empty());
    }

    #[test]
    fn full_buckets_are_swept_so_the_map_stays_bounded() {
        let quota = Quota::new(2, 60);
        let start = Instant::now();
        for n in 0..(FIRST_SWEEP as u32) {
            quota.take_at(client(n), start).unwrap();
        }
        // Two seconds on, every bucket is full again: the sweep drops them all.
        let later = start + Duration::from_secs(2);
        quota.take_at(client(u32::MAX), later).unwrap();
        let buckets = quota.buckets.lock().unwrap();
        assert_eq!(buckets.by_client.len(), 1);
        assert_eq!(buckets.sweep_at, FIRST_SWEEP);
    }
}

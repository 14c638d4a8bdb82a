//! Message-rate limits, on `governor`'s direct limiter. Each socket has its own ([`RateLimit`],
//! held by its connection task), and the sockets of one seat also draw from one shared
//! [`SeatBudget`]: opening more sockets for a seat must not buy more messages (issue 12: sixteen
//! sockets of one seat sent 960 draw offers and declines in 4 seconds).
//!
//! Each limit refills at `limit` a second and holds `limit` messages at once; a seat's holds a
//! tenth more (`SEAT_BURST_TENTHS`). A message is counted when the server reads it, not when
//! the client sent it, so a server that stalls and then reads a backlog at once sees a burst the
//! client never sent: with a strict window of 20 in any second, a client sending 15 frames a
//! second was closed with 1008 under load in two of three two-instance games (issue 27). The
//! allowance stays small: four sockets of one seat sending 24 messages at once are still cut
//! (tests/server.rs), and a seat that keeps sending faster than `limit` is cut within seconds.

use std::num::NonZeroU32;
use std::sync::Arc;

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};

/// `limit` messages a second and `burst` at once (both at least 1).
fn quota(limit: usize, burst: usize) -> Quota {
    let count =
        |n: usize| NonZeroU32::new(u32::try_from(n).unwrap_or(u32::MAX)).unwrap_or(NonZeroU32::MIN);
    Quota::per_second(count(limit)).allow_burst(count(burst))
}

/// A seat's burst, in tenths above its limit (at least one message more).
const SEAT_BURST_TENTHS: usize = 1;

/// One socket's limit.
#[derive(Debug)]
pub struct RateLimit(DefaultDirectRateLimiter);

impl RateLimit {
    pub fn new(limit: usize) -> RateLimit {
        RateLimit(RateLimiter::direct(quota(limit, limit)))
    }

    /// Counts a message read now; `false` if it is one too many (the caller closes the socket).
    pub fn allow(&self) -> bool {
        self.0.check().is_ok()
    }
}

/// The rate limit all the sockets of one seat share; the room hands it to each on attach.
#[derive(Clone, Debug)]
pub struct SeatBudget(Arc<RateLimit>);

impl SeatBudget {
    pub fn new(limit: usize) -> SeatBudget {
        let burst = limit + (limit * SEAT_BURST_TENTHS / 10).max(1);
        SeatBudget(Arc::new(RateLimit(RateLimiter::direct(quota(
            limit, burst,
        )))))
    }

    pub fn allow(&self) -> bool {
        self.0.allow()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_may_send_its_limit_at_once_then_one_per_interval() {
        let rate = RateLimit::new(20);
        assert!((0..20).all(|_| rate.allow()));
        assert!(!rate.allow());
        std::thread::sleep(std::time::Duration::from_millis(120));
        // 50 ms a message: two more have come back.
        assert!(rate.allow() && rate.allow());
        assert!(!rate.allow());
    }

    #[test]
    fn a_seat_budget_is_shared_by_its_clones() {
        let budget = SeatBudget::new(20);
        let other_socket = budget.clone();
        // The limit and a tenth more, from either socket.
        assert!((0..11).all(|_| budget.allow() && other_socket.allow()));
        assert!(!other_socket.allow());
    }
}

//! Message-rate limits. Each socket has its own ([`RateLimit`], held by its connection task), and
//! the sockets of one seat also draw from one shared [`SeatBudget`]: opening more sockets for a
//! seat must not buy more messages (issue 12: sixteen sockets of one seat sent 960 draw offers and
//! declines in 4 seconds).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

/// At most `limit` messages in any one-second window.
#[derive(Debug)]
pub struct RateLimit {
    limit: usize,
    recent: VecDeque<Instant>,
}

impl RateLimit {
    pub fn new(limit: usize) -> RateLimit {
        RateLimit {
            limit,
            recent: VecDeque::new(),
        }
    }

    /// Counts a message sent at `now`; `false` if it is one too many. A caller closes the socket
    /// that was refused, so the window holds at most `limit + 1` entries per socket.
    pub fn allow(&mut self, now: Instant) -> bool {
        while self
            .recent
            .front()
            .is_some_and(|&t| now.duration_since(t) >= Duration::from_secs(1))
        {
            self.recent.pop_front();
        }
        self.recent.push_back(now);
        self.recent.len() <= self.limit
    }
}

/// The rate limit all the sockets of one seat share; the room hands it to each on attach.
#[derive(Clone, Debug)]
pub struct SeatBudget(Arc<Mutex<RateLimit>>);

impl SeatBudget {
    pub fn new(limit: usize) -> SeatBudget {
        SeatBudget(Arc::new(Mutex::new(RateLimit::new(limit))))
    }

    pub fn allow(&self, now: Instant) -> bool {
        // Held for a few instructions and never across an await: a poisoned lock can only come
        // from a panic inside `allow`, which has none.
        self.0.lock().expect("rate limit lock").allow(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_allows_twenty_per_second() {
        let mut rate = RateLimit::new(20);
        let start = Instant::now();
        for i in 0..20 {
            assert!(rate.allow(start + Duration::from_millis(i)));
        }
        assert!(!rate.allow(start + Duration::from_millis(500)));
        let mut rate = RateLimit::new(20);
        for i in 0..40 {
            assert!(rate.allow(start + Duration::from_millis(60 * i)), "{i}");
        }
    }

    #[test]
    fn a_seat_budget_is_shared_by_its_clones() {
        let budget = SeatBudget::new(4);
        let other_socket = budget.clone();
        let now = Instant::now();
        assert!(budget.allow(now) && other_socket.allow(now));
        assert!(budget.allow(now) && other_socket.allow(now));
        assert!(!other_socket.allow(now));
    }
}

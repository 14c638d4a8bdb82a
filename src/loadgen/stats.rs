//! What the load generator counts: per-room tallies merged at the end into one JSON report.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

/// Tallies kept by one room's task (no sharing while running) and merged afterwards.
#[derive(Debug, Default)]
pub struct Stats {
    pub rooms_opened: u64,
    pub connections_opened: u64,
    pub actions_sent: u64,
    pub actions_answered: u64,
    pub events_received: u64,
    pub messages_received: u64,
    pub games_finished: u64,
    /// Action-to-answer times in microseconds.
    pub latencies_us: Vec<u32>,
    /// With `--reconnect`: from a player noticing its socket closed to its welcome through
    /// another target, in microseconds.
    pub reconnects_us: Vec<u32>,
    /// Actions sent whose socket closed before their answer.
    pub actions_in_flight_at_close: u64,
    /// With `--reconnect`: actions acknowledged (their event seen) that the welcome after a
    /// reconnection does not hold.
    pub acknowledged_lost: u64,
    /// Games that could not go on: a player who could not take its seat again, or a game ended
    /// by abandonment or on time (scripted players always answer at once).
    pub games_lost: u64,
    /// With `--reconnect` in timed games, for each player away while its own time ran: how
    /// much less time it had at its welcome than when its socket closed, in milliseconds
    /// (negative: time given back).
    pub clock_charged_ms: Vec<i64>,
    /// Errors by kind: a server `error` code, or a client-side failure.
    pub errors: BTreeMap<String, u64>,
}

impl Stats {
    pub fn error(&mut self, kind: impl Into<String>) {
        *self.errors.entry(kind.into()).or_default() += 1;
    }

    /// Records the time from sending an action to its first answer.
    pub fn latency(&mut self, latency: Duration) {
        self.latencies_us.push(micros(latency));
    }

    /// Records the time a player was away between its socket closing and its welcome again.
    pub fn reconnected(&mut self, away: Duration) {
        self.reconnects_us.push(micros(away));
    }

    pub fn merge(&mut self, other: Stats) {
        self.rooms_opened += other.rooms_opened;
        self.connections_opened += other.connections_opened;
        self.actions_sent += other.actions_sent;
        self.actions_answered += other.actions_answered;
        self.events_received += other.events_received;
        self.messages_received += other.messages_received;
        self.games_finished += other.games_finished;
        self.latencies_us.extend(other.latencies_us);
        self.reconnects_us.extend(other.reconnects_us);
        self.actions_in_flight_at_close += other.actions_in_flight_at_close;
        self.acknowledged_lost += other.acknowledged_lost;
        self.games_lost += other.games_lost;
        self.clock_charged_ms.extend(other.clock_charged_ms);
        for (kind, count) in other.errors {
            *self.errors.entry(kind).or_default() += count;
        }
    }
}

fn micros(duration: Duration) -> u32 {
    u32::try_from(duration.as_micros()).unwrap_or(u32::MAX)
}

fn ms(us: u32) -> f64 {
    f64::from(us) / 1000.0
}

/// Latency percentiles in milliseconds.
#[derive(Debug, Serialize, PartialEq)]
pub struct Latency {
    pub p50_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Latency {
    pub(super) fn of(latencies_us: &mut [u32]) -> Option<Self> {
        if latencies_us.is_empty() {
            return None;
        }
        latencies_us.sort_unstable();
        let at = |q: f64| {
            // Nearest-rank percentile.
            let rank = (q * latencies_us.len() as f64).ceil() as usize;
            ms(latencies_us[rank.clamp(1, latencies_us.len()) - 1])
        };
        Some(Latency {
            p50_ms: at(0.50),
            p99_ms: at(0.99),
            max_ms: at(1.0),
        })
    }
}

/// The clock time charged to players while they were away (see [`Stats::clock_charged_ms`]).
#[derive(Debug, Serialize, PartialEq)]
pub struct ClockCharged {
    /// Reconnections of a player whose own time was running.
    pub away_on_own_time: usize,
    /// The time those players lost while away, in all and at most, in milliseconds.
    pub charged_total_ms: i64,
    pub charged_max_ms: i64,
    /// The time given back to them (a `resumed` that restarted the clock from the last event).
    pub given_back_total_ms: i64,
}

impl ClockCharged {
    fn of(charged: &[i64]) -> Option<ClockCharged> {
        (!charged.is_empty()).then(|| ClockCharged {
            away_on_own_time: charged.len(),
            charged_total_ms: charged.iter().filter(|&&ms| ms > 0).sum(),
            charged_max_ms: charged.iter().copied().max().unwrap_or(0).max(0),
            given_back_total_ms: -charged.iter().filter(|&&ms| ms < 0).sum::<i64>(),
        })
    }
}

/// The report printed as JSON.
#[derive(Debug, Serialize)]
pub struct Report {
    /// `server` or `echo`.
    pub target: &'static str,
    /// Rooms open at the start of the measured run.
    pub rooms: u64,
    /// WebSocket connections open at the start of the measured run.
    pub connections: u64,
    /// Rooms opened in all, including new rooms after finished games.
    pub rooms_opened: u64,
    pub seconds: f64,
    pub actions_sent: u64,
    pub actions_answered: u64,
    pub events_received: u64,
    pub games_finished: u64,
    pub errors: u64,
    pub error_kinds: BTreeMap<String, u64>,
    pub actions_per_sec: f64,
    pub latency: Option<Latency>,
    /// With `--reconnect`: how many players took their seat again after their socket closed,
    /// and how long each was away (close noticed to welcome).
    pub reconnects: usize,
    pub reconnect_time: Option<Latency>,
    /// Every reconnection's time away in milliseconds, in ascending order: several load
    /// generators' reports (.ci/container/rolling.py) are combined into one exact percentile.
    pub reconnect_times_ms: Vec<f64>,
    pub actions_in_flight_at_close: u64,
    pub acknowledged_actions_lost: u64,
    pub games_lost: u64,
    /// With `--reconnect` in timed games.
    pub clock_charged: Option<ClockCharged>,
    /// The server's resident memory at the end of the run, if its pid was given.
    pub server_rss_mib: Option<f64>,
    /// The highest resident memory sampled during the run.
    pub server_rss_max_mib: Option<f64>,
    /// CPU seconds (user + system) the server used during the run: with `--idle`, what merely
    /// holding the rooms (and their clocks' timers) costs.
    pub server_cpu_seconds: Option<f64>,
    /// Context switches of the server's threads during the run: every wake-up counts, so a
    /// timer per room per second would show here as thousands a second. A lower bound: a
    /// thread that ended during the run (the blocking pool's) takes its count with it.
    pub server_context_switches: Option<u64>,
    /// Microseconds of the server's CPU per answered action, by kind of thread (tokio's
    /// workers, the SQLite writer's connection thread, ...): where an action's CPU goes.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub server_cpu_us_per_action_by_thread: BTreeMap<String, f64>,
}

impl Report {
    pub fn new(
        target: &'static str,
        rooms: u64,
        connections: u64,
        elapsed: Duration,
        mut stats: Stats,
    ) -> Self {
        let seconds = elapsed.as_secs_f64();
        Report {
            target,
            rooms,
            connections,
            rooms_opened: stats.rooms_opened,
            seconds,
            actions_sent: stats.actions_sent,
            actions_answered: stats.actions_answered,
            events_received: stats.events_received,
            games_finished: stats.games_finished,
            errors: stats.errors.values().sum(),
            actions_per_sec: if seconds > 0.0 {
                stats.actions_answered as f64 / seconds
            } else {
                0.0
            },
            latency: Latency::of(&mut stats.latencies_us),
            reconnects: stats.reconnects_us.len(),
            // Sorted by `Latency::of`.
            reconnect_time: Latency::of(&mut stats.reconnects_us),
            reconnect_times_ms: stats.reconnects_us.iter().map(|&us| ms(us)).collect(),
            actions_in_flight_at_close: stats.actions_in_flight_at_close,
            acknowledged_actions_lost: stats.acknowledged_lost,
            games_lost: stats.games_lost,
            clock_charged: ClockCharged::of(&stats.clock_charged_ms),
            error_kinds: stats.errors,
            server_rss_mib: None,
            server_rss_max_mib: None,
            server_cpu_seconds: None,
            server_context_switches: None,
            server_cpu_us_per_action_by_thread: BTreeMap::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut samples: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        let latency = Latency::of(&mut samples).unwrap();
        assert_eq!(
            latency,
            Latency {
                p50_ms: 50.0,
                p99_ms: 99.0,
                max_ms: 100.0
            }
        );
        assert_eq!(Latency::of(&mut []), None);
    }

    #[test]
    fn merges_tallies() {
        let mut total = Stats::default();
        let mut part = Stats::default();
        part.error("bad_json");
        part.latency(Duration::from_millis(2));
        total.merge(part);
        let mut part = Stats::default();
        part.error("bad_json");
        total.merge(part);
        assert_eq!(total.errors["bad_json"], 2);
        assert_eq!(total.latencies_us, vec![2000]);
    }

    #[test]
    fn reports_every_reconnection_in_order() {
        let mut stats = Stats::default();
        for ms in [900, 5, 120] {
            stats.reconnected(Duration::from_millis(ms));
        }
        let report = Report::new("server", 1, 2, Duration::from_secs(1), stats);
        assert_eq!(report.reconnects, 3);
        assert_eq!(report.reconnect_times_ms, vec![5.0, 120.0, 900.0]);
        assert_eq!(report.reconnect_time.map(|time| time.max_ms), Some(900.0));
    }

    #[test]
    fn sums_clock_time_charged_and_given_back() {
        let charged = ClockCharged::of(&[300, -50, 1200, -10]).unwrap();
        assert_eq!(
            charged,
            ClockCharged {
                away_on_own_time: 4,
                charged_total_ms: 1500,
                charged_max_ms: 1200,
                given_back_total_ms: 60,
            }
        );
        assert_eq!(ClockCharged::of(&[]), None);
    }
}

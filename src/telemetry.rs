//! Logs and metrics: the tracing subscriber, the Prometheus recorder, and the one list of every
//! metric the server records (names, labels, descriptions, histogram buckets).
//!
//! Call sites record with the `metrics` macros and the constants below, e.g.
//! `metrics::counter!(telemetry::ACTIONS, telemetry::LABEL_TYPE => "roll").increment(1)`,
//! so a metric's name is spelled once, here.

use std::io::IsTerminal;
use std::sync::OnceLock;
use std::time::Duration;

use metrics::{
    Unit, counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram,
};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use serde::Serialize;
use tokio::time::Instant;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::Layer as _;

use crate::protocol::{Action, ErrorCode, Event, Mode};

/// Open WebSocket connections (gauge).
pub const CONNECTIONS_OPEN: &str = "senet_connections_open";
/// Open TCP connections of the public listener, WebSockets included (gauge).
pub const TCP_CONNECTIONS_OPEN: &str = "senet_tcp_connections_open";
/// TCP connections refused at accept because a cap was reached (counter).
pub const TCP_CONNECTIONS_REFUSED: &str = "senet_tcp_connections_refused_total";
/// Rooms whose task is running in memory (gauge).
pub const ROOMS_IN_MEMORY: &str = "senet_rooms_in_memory";
/// Games started (counter; label `mode`).
pub const GAMES_STARTED: &str = "senet_games_started_total";
/// Games finished (counter; labels `mode`, `result` = black|white|draw, `reason`).
pub const GAMES_FINISHED: &str = "senet_games_finished_total";
/// Client actions received (counter; label `type`).
pub const ACTIONS: &str = "senet_actions_total";
/// Errors answered to clients (counter; label `code`).
pub const ERRORS: &str = "senet_errors_total";
/// From receiving an action to sending the event it caused (histogram, seconds).
pub const ACTION_LATENCY: &str = "senet_action_latency_seconds";
/// Appending one event to the database, commit included (histogram, seconds).
pub const DB_APPEND_LATENCY: &str = "senet_db_append_seconds";
/// The AI choosing one move (histogram, seconds).
pub const AI_DECISION_TIME: &str = "senet_ai_decision_seconds";
/// Analysing one finished game, on its first request (histogram, seconds).
pub const ANALYSIS_TIME: &str = "senet_analysis_seconds";
/// From a seek's post arriving to its answer: the seek is listed, not yet sent to anyone
/// (histogram, seconds).
pub const SEEK_POST_LATENCY: &str = "senet_seek_post_seconds";
/// From a seek's post arriving to the batch that carries it handed to the lobby sockets: the
/// server's part of the time until a seek appears in every lobby (histogram, seconds).
pub const SEEK_SHOWN_LATENCY: &str = "senet_seek_shown_seconds";
/// The CPU time of one tournament pairing (the matching and what builds its graph), on the
/// director's thread (histogram, seconds; label `format` = arena|swiss).
pub const TOURNAMENT_PAIRING_CPU: &str = "senet_tournament_pairing_cpu_seconds";

/// Store operations that failed, a lost version race aside (counter; label `kind`, from
/// [`crate::store::StoreError::kind`]).
pub const STORE_ERRORS: &str = "senet_store_errors_total";
/// Web Push notifications by outcome (counter; label `outcome`: `sent`, `gone` (404/410: the
/// subscription removed), `failed` (retries spent), `rate` (over `--push-per-minute`), `queue`
/// (the queue full)).
pub const PUSH_SENDS: &str = "senet_push_sends_total";
/// 1 when the database answered and was migrated at the last `/readyz` or scrape, else 0
/// (gauge): what `/readyz` says, for alerting.
pub const READY: &str = "senet_ready";
/// This process's resident memory, read at each scrape (gauge, bytes; the name every
/// Prometheus client library uses).
pub const RESIDENT_MEMORY: &str = "process_resident_memory_bytes";
/// The memory this process may use: its container's limit, else the machine's (gauge, bytes;
/// [`crate::os::memory_limit_bytes`]).
pub const MEMORY_LIMIT: &str = "senet_memory_limit_bytes";

/// Label keys used with the metrics above.
pub const LABEL_MODE: &str = "mode";
pub const LABEL_RESULT: &str = "result";
pub const LABEL_REASON: &str = "reason";
pub const LABEL_TYPE: &str = "type";
pub const LABEL_CODE: &str = "code";
pub const LABEL_KIND: &str = "kind";
pub const LABEL_FORMAT: &str = "format";

/// Histogram buckets in seconds: 100 µs to 1 s. An action is expected to take well under a
/// millisecond on its own and a few milliseconds with a commit, so the low end is dense.
const LATENCY_BUCKETS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
];

/// How often the exporter's upkeep runs; without it, histogram samples pile up between scrapes.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// How log lines are written (`--log-format`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Libraries that log whole WebSocket messages (tokens included) at debug and trace level:
/// capped at info whatever `RUST_LOG` asks for, so no token reaches a log. The cap is a filter of
/// its own, applied after `RUST_LOG`'s: as directives appended to it, a more specific one
/// (`tungstenite::protocol=trace`) overrode it (issue 28).
const MESSAGE_LOGGERS: [&str; 2] = ["tungstenite", "tokio_tungstenite"];

/// Installs the global tracing subscriber, writing to stderr (stdout is for command output),
/// in colour only when stderr is a terminal: a container's or a service's log would otherwise
/// hold the escape codes. The filter comes from `RUST_LOG` (default `info`). Calling it again
/// does nothing, so tests that start several servers in one process may call it freely.
pub fn init_tracing(format: LogFormat) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let wanted = std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into());
    let output = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    let output = match format {
        LogFormat::Text => output.boxed(),
        LogFormat::Json => output.json().boxed(),
    };
    // An error only means a subscriber is already installed, which is fine.
    let _ = tracing_subscriber::registry()
        .with(output)
        .with(log_filter(&wanted))
        .try_init();
}

/// `RUST_LOG`'s filter (`info` if it does not parse), then the cap on the message loggers.
fn log_filter<S: tracing::Subscriber>(wanted: &str) -> impl tracing_subscriber::Layer<S> {
    use tracing_subscriber::Layer;
    use tracing_subscriber::filter::{LevelFilter, Targets};
    let wanted = EnvFilter::try_new(wanted).unwrap_or_else(|_| EnvFilter::new("info"));
    let cap = MESSAGE_LOGGERS.into_iter().fold(
        Targets::new().with_default(LevelFilter::TRACE),
        |cap, target| cap.with_target(target, LevelFilter::INFO),
    );
    wanted.and_then(cap)
}

/// The process's Prometheus recorder, installed on first use; render it for `GET /metrics`.
///
/// A process has one global recorder, so every server in a process (tests start several)
/// shares this handle. Must first be called inside a tokio runtime (it spawns the upkeep task).
pub fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets(LATENCY_BUCKETS)
                .expect("the bucket list is not empty");
            let handle = match builder.install_recorder() {
                Ok(handle) => handle,
                // Another recorder owns the process (an embedding program): keep a detached
                // one so `/metrics` still answers, with whatever it records.
                Err(error) => {
                    tracing::warn!(%error, "metrics recorder not installed");
                    PrometheusBuilder::new().build_recorder().handle()
                }
            };
            describe();
            spawn_upkeep(handle.clone());
            handle
        })
        .clone()
}

fn spawn_upkeep(handle: PrometheusHandle) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(UPKEEP_EVERY);
        loop {
            every.tick().await;
            handle.run_upkeep();
        }
    });
}

/// Describes every metric and sets the gauges to zero, so a scrape shows them from the start.
fn describe() {
    describe_gauge!(CONNECTIONS_OPEN, Unit::Count, "Open WebSocket connections.");
    describe_gauge!(
        TCP_CONNECTIONS_OPEN,
        Unit::Count,
        "Open TCP connections, WebSockets included."
    );
    describe_counter!(
        TCP_CONNECTIONS_REFUSED,
        Unit::Count,
        "TCP connections refused at accept: a connection cap was reached."
    );
    describe_gauge!(ROOMS_IN_MEMORY, Unit::Count, "Rooms with a running task.");
    describe_counter!(GAMES_STARTED, Unit::Count, "Games started, by mode.");
    describe_counter!(
        GAMES_FINISHED,
        Unit::Count,
        "Games finished, by mode, result and reason."
    );
    describe_counter!(ACTIONS, Unit::Count, "Client actions received, by type.");
    describe_counter!(ERRORS, Unit::Count, "Errors answered to clients, by code.");
    describe_histogram!(
        ACTION_LATENCY,
        Unit::Seconds,
        "From receiving an action to sending the event it caused."
    );
    describe_histogram!(
        DB_APPEND_LATENCY,
        Unit::Seconds,
        "Appending one event to the database, commit included."
    );
    describe_histogram!(AI_DECISION_TIME, Unit::Seconds, "The AI choosing one move.");
    describe_histogram!(
        ANALYSIS_TIME,
        Unit::Seconds,
        "Analysing one finished game (first request only; later ones read the stored analysis)."
    );
    describe_histogram!(
        SEEK_POST_LATENCY,
        Unit::Seconds,
        "From a seek's post arriving to its answer."
    );
    describe_histogram!(
        SEEK_SHOWN_LATENCY,
        Unit::Seconds,
        "From a seek's post arriving to the batch carrying it handed to the lobby sockets."
    );
    describe_histogram!(
        TOURNAMENT_PAIRING_CPU,
        Unit::Seconds,
        "The CPU time of one tournament pairing, by format."
    );
    describe_counter!(
        STORE_ERRORS,
        Unit::Count,
        "Store operations that failed (a lost version race aside), by kind."
    );
    describe_counter!(
        PUSH_SENDS,
        Unit::Count,
        "Web Push notifications by outcome: sent, gone, failed, rate, queue."
    );
    describe_gauge!(
        READY,
        "1 when the database answered and was migrated at the last check, else 0."
    );
    describe_gauge!(
        RESIDENT_MEMORY,
        Unit::Bytes,
        "Resident memory of this process."
    );
    describe_gauge!(
        MEMORY_LIMIT,
        Unit::Bytes,
        "Memory this process may use: its cgroup's limit, else the machine's."
    );
    gauge!(CONNECTIONS_OPEN).set(0.0);
    gauge!(TCP_CONNECTIONS_OPEN).set(0.0);
    // Counters that alerts watch start at zero, so that their first failure is an increase
    // (`increase()` over a series that did not exist yet sees nothing).
    counter!(TCP_CONNECTIONS_REFUSED).increment(0);
    counter!(STORE_ERRORS, LABEL_KIND => "database").increment(0);
    gauge!(ROOMS_IN_MEMORY).set(0.0);
}

/// A client action arrived on a connection (counted by type); returns when, for
/// [`action_answered`].
pub fn action_received(action: Action) -> Instant {
    counter!(ACTIONS, LABEL_TYPE => action.name()).increment(1);
    Instant::now()
}

/// The events of an action received at `received` have been sent to its connection.
pub fn action_answered(received: Instant) {
    histogram!(ACTION_LATENCY).record(received.elapsed().as_secs_f64());
}

/// An error was answered to a client, over WebSocket or HTTP.
pub fn error_answered(code: ErrorCode) {
    counter!(ERRORS, LABEL_CODE => wire_name(&code)).increment(1);
}

/// Events of a room in `mode` were committed, the append taking `append_took`: counts the
/// games they start and finish. Only called for new events, never when a log is replayed.
pub fn events_committed(mode: Mode, events: &[Event], append_took: Duration) {
    histogram!(DB_APPEND_LATENCY).record(append_took.as_secs_f64());
    for event in events {
        match event {
            Event::Started { .. } => {
                counter!(GAMES_STARTED, LABEL_MODE => mode.name()).increment(1);
            }
            Event::GameOver { winner, reason, .. } => {
                counter!(
                    GAMES_FINISHED,
                    LABEL_MODE => mode.name(),
                    LABEL_RESULT => wire_name(winner),
                    LABEL_REASON => wire_name(reason),
                )
                .increment(1);
            }
            _ => {}
        }
    }
}

/// Runs a tournament's pairing (`format`: arena or swiss) and records its CPU time.
pub fn pairing_timed<T>(format: &'static str, pair: impl FnOnce() -> T) -> T {
    let before = crate::os::thread_cpu_time();
    let paired = pair();
    let cpu = crate::os::thread_cpu_time().saturating_sub(before);
    histogram!(TOURNAMENT_PAIRING_CPU, LABEL_FORMAT => format).record(cpu.as_secs_f64());
    paired
}

/// A store operation failed with an error of `kind`.
pub fn store_failed(kind: &'static str) {
    counter!(STORE_ERRORS, LABEL_KIND => kind).increment(1);
}

/// A Web Push notification's outcome (see [`PUSH_SENDS`]).
pub fn push_sent(outcome: &'static str) {
    counter!(PUSH_SENDS, "outcome" => outcome).increment(1);
}

/// What the readiness check found.
pub fn readiness_checked(ready: bool) {
    gauge!(READY).set(if ready { 1.0 } else { 0.0 });
}

/// Reads this process's memory and its limit into their gauges, for a scrape; a figure the
/// system does not give is left as it was.
pub fn sample_process() {
    if let Ok(bytes) = crate::os::resident_memory_bytes(std::process::id()) {
        gauge!(RESIDENT_MEMORY).set(bytes as f64);
    }
    if let Ok(bytes) = crate::os::memory_limit_bytes() {
        gauge!(MEMORY_LIMIT).set(bytes as f64);
    }
}

/// How a value is spelled on the wire (`"not_your_turn"`, `"borne-off"`), for a label.
fn wire_name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "unknown".to_string(),
    }
}

/// Adds one to a gauge while alive and takes it back when dropped, so an early return or a
/// panic cannot leave the gauge counting something that is gone.
#[derive(Debug)]
#[must_use = "the gauge goes back down when this guard is dropped"]
pub struct GaugeGuard(&'static str);

impl GaugeGuard {
    pub fn new(name: &'static str) -> Self {
        gauge!(name).increment(1.0);
        GaugeGuard(name)
    }
}

impl Drop for GaugeGuard {
    fn drop(&mut self) {
        gauge!(self.0).decrement(1.0);
    }
}

#[cfg(test)]
mod log_filter_tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt;

    use super::log_filter;

    /// What a subscriber with `RUST_LOG=wanted` writes for a trace event of `target`'s.
    fn logged(wanted: &str) -> String {
        let out = Arc::new(Mutex::new(Vec::new()));
        let writer = {
            let out = out.clone();
            move || Sink(out.clone())
        };
        let output = tracing_subscriber::fmt::layer()
            .with_writer(writer)
            .with_ansi(false);
        let subscriber = tracing_subscriber::registry()
            .with(output)
            .with(log_filter(wanted));
        tracing::subscriber::with_default(subscriber, || {
            tracing::trace!(target: "tungstenite::protocol", "frame with a token");
            tracing::trace!(target: "senet::room", "a room's trace");
        });
        String::from_utf8(out.lock().unwrap().clone()).unwrap()
    }

    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Sink {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_more_specific_directive_does_not_lift_the_cap_on_the_message_loggers() {
        let out = logged("trace,tungstenite::protocol=trace");
        assert!(!out.contains("token"), "{out}");
        assert!(
            out.contains("a room's trace"),
            "the rest follows RUST_LOG: {out}"
        );
    }
}

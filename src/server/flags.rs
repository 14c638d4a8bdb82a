//! How the flags of `senet serve` write durations and counts: the parsers [`super::config`] and
//! the edge's settings ([`super::edge`]) share, below both.

use std::time::Duration;

/// A duration as the seconds a flag is written in (a flag's default text).
pub(crate) fn seconds(duration: Duration) -> String {
    duration.as_secs_f64().to_string()
}

/// Seconds, possibly fractional (`0.5`), as a duration.
pub(crate) fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds).map_err(|_| format!("{text:?} is not a valid duration"))
}

/// A count of at least one.
pub(crate) fn parse_positive_count(text: &str) -> Result<usize, String> {
    match text.parse() {
        Ok(0) | Err(_) => Err(format!("{text:?} is not a whole number of at least 1")),
        Ok(count) => Ok(count),
    }
}

/// Like [`parse_seconds`], but more than zero.
pub(crate) fn parse_positive_seconds(text: &str) -> Result<Duration, String> {
    match parse_seconds(text)? {
        Duration::ZERO => Err("must be more than 0 seconds".into()),
        positive => Ok(positive),
    }
}

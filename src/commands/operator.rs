//! Who acts and why, for every `senet admin` command that changes something: the `--as` and
//! `--reason` every such command takes, and the durations of bans and time-outs. Apart from
//! `admin.rs` so the chat commands (`admin_chat.rs`) share them without importing their sibling.

use std::time::Duration;

use crate::store::bans::Operator;

/// The longest reason an operator may give (it is shown to players and banned clients).
const MAX_REASON_CHARS: usize = 500;

/// The longest ban or time-out, in days (a century): longer is a typo, and would overflow the
/// milliseconds the end is stored in.
const MAX_DURATION_DAYS: u64 = 36_500;

/// Who acts and why: recorded in the audit log.
#[derive(Debug, clap::Args)]
pub(super) struct OperatorArgs {
    /// Why (shown to a banned client or to the players of an ended game, and kept in the audit
    /// log).
    #[arg(long, value_parser = parse_reason)]
    reason: String,
    /// The operator's name, for the audit log.
    #[arg(long = "as")]
    actor: String,
}

impl OperatorArgs {
    pub(super) fn operator(self) -> Operator {
        Operator {
            name: self.actor,
            reason: self.reason,
            at: crate::room::now_ms(),
        }
    }
}

/// Some words, at most [`MAX_REASON_CHARS`].
fn parse_reason(text: &str) -> Result<String, String> {
    match text.trim().chars().count() {
        0 => Err("say why (a reason is kept in the audit log)".into()),
        n if n > MAX_REASON_CHARS => Err(format!(
            "{n} characters: a reason has at most {MAX_REASON_CHARS}"
        )),
        _ => Ok(text.trim().to_owned()),
    }
}

/// `90s`, `30m`, `24h`, `7d`, or a bare number of seconds; more than zero, at most
/// [`MAX_DURATION_DAYS`].
pub(super) fn parse_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = match text.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => text.split_at(at),
        None => (text, "s"),
    };
    let seconds_per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("{text:?}: use a number with s, m, h or d (24h)")),
    };
    let seconds = match number.parse::<u64>() {
        Ok(count) if count > 0 => count.checked_mul(seconds_per),
        _ => return Err(format!("{text:?}: use a number with s, m, h or d (24h)")),
    };
    match seconds {
        Some(seconds) if seconds <= MAX_DURATION_DAYS * 86_400 => Ok(Duration::from_secs(seconds)),
        _ => Err(format!("{text:?}: at most {MAX_DURATION_DAYS}d")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_reasons_are_read() {
        assert_eq!(parse_duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("7d"), Ok(Duration::from_secs(7 * 86_400)));
        assert!(parse_duration("0h").is_err());
        assert!(parse_duration("5 weeks").is_err());
        assert!(parse_duration("h").is_err());
        assert!(parse_duration("36500d").is_ok());
        assert!(parse_duration("36501d").is_err());
        assert!(parse_duration("150000000000d").is_err());
        assert!(parse_duration("99999999999999999999d").is_err());
        assert_eq!(parse_reason(" spam "), Ok("spam".into()));
        assert!(parse_reason("  ").is_err());
        assert!(parse_reason(&"x".repeat(501)).is_err());
    }
}

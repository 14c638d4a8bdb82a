//! Time controls as the wire writes them: live (Fischer) and correspondence (days per move).

use serde::{Deserialize, Serialize};

/// A time control, in seconds. Live (Fischer): each side starts with `initial`, and
/// `increment` is added to a side's time when its turn ends. Correspondence (`days` set): each
/// side has `days` for every turn, and its clock is set back to the whole allowance when its
/// turn ends (the extra throws of a 1, 4 or 5 are the same turn); `initial` is then the
/// allowance in seconds and `increment` 0, so a reader that knows only those two fields still
/// sees the allowance. A client may send `{"days": 3}` alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "WireTimeControl")]
pub struct TimeControl {
    pub initial: u32,
    pub increment: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u8>,
}

/// Seconds in a day: a correspondence allowance is counted in these.
pub const DAY_SECONDS: u32 = 86_400;

/// The allowances a correspondence game may have, in days per move.
pub const CORRESPONDENCE_DAYS: [u8; 6] = [1, 2, 3, 5, 7, 14];

/// A time control as a client may write it (a correspondence one by `days` alone).
#[derive(Deserialize)]
struct WireTimeControl {
    #[serde(default)]
    initial: Option<u32>,
    #[serde(default)]
    increment: Option<u32>,
    #[serde(default)]
    days: Option<u8>,
}

impl TryFrom<WireTimeControl> for TimeControl {
    type Error = String;

    fn try_from(wire: WireTimeControl) -> Result<TimeControl, String> {
        match (wire.initial, wire.increment, wire.days) {
            (initial, increment, Some(days)) => {
                let control = TimeControl::correspondence(days);
                if initial.is_some_and(|i| i != control.initial)
                    || increment.is_some_and(|i| i != 0)
                {
                    return Err(format!(
                        "a correspondence clock is \"days\" alone (or with \"initial\": {} and \"increment\": 0)",
                        control.initial
                    ));
                }
                Ok(control)
            }
            (Some(initial), Some(increment), None) => Ok(TimeControl {
                initial,
                increment,
                days: None,
            }),
            _ => Err("a clock is {\"initial\", \"increment\"} in seconds, or {\"days\"}".into()),
        }
    }
}

impl TimeControl {
    /// A live control of `initial` seconds plus `increment` a turn.
    pub fn fischer(initial: u32, increment: u32) -> TimeControl {
        TimeControl {
            initial,
            increment,
            days: None,
        }
    }

    /// A correspondence control of `days` a turn (checked against [`CORRESPONDENCE_DAYS`] where
    /// a room is made, not here).
    pub fn correspondence(days: u8) -> TimeControl {
        TimeControl {
            initial: u32::from(days) * DAY_SECONDS,
            increment: 0,
            days: Some(days),
        }
    }

    /// The control stored as two columns: a correspondence one is its allowance with no
    /// increment, whole days long (no live control is: `MAX_CLOCK_INITIAL` is two hours).
    pub fn from_columns(initial: u32, increment: u32) -> TimeControl {
        let days =
            (increment == 0 && initial >= DAY_SECONDS && initial.is_multiple_of(DAY_SECONDS))
                .then(|| u8::try_from(initial / DAY_SECONDS).ok())
                .flatten();
        match days {
            Some(days) => TimeControl::correspondence(days),
            None => TimeControl::fischer(initial, increment),
        }
    }

    /// Whether this is a correspondence control (days per move).
    pub fn is_correspondence(self) -> bool {
        self.days.is_some()
    }

    pub fn initial_ms(self) -> i64 {
        i64::from(self.initial) * 1000
    }

    pub fn increment_ms(self) -> i64 {
        i64::from(self.increment) * 1000
    }
}

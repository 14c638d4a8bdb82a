//! One room's append as every backend writes it, and how a version is stored: below the group
//! commit, the rows and the summaries, which all take it.

use super::StoredEvent;
use crate::protocol::Version;

/// One room's append: its events in version order, and its summary as of the last of them
/// (`None`: the stored one stays, for logs written by tools that do not fold them).
#[derive(Clone, Copy)]
pub(super) struct Append<'a> {
    pub room: &'a str,
    pub events: &'a [StoredEvent],
    pub summary: Option<&'a str>,
}

impl Append<'_> {
    /// The version the append ends at.
    pub fn last_v(&self) -> Option<Version> {
        self.events.last().map(|event| event.v)
    }
}

/// Both schemas store versions as signed 64-bit integers.
pub(super) fn version_to_i64(v: Version) -> i64 {
    i64::try_from(v).expect("versions stay far below i64::MAX")
}

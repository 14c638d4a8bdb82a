//! Tournaments: Arena and Swiss (issue 45; the rules are docs/TOURNAMENTS.md).
//!
//! [`pairing`] is pure: who meets whom, from what the tournament knows of its players.

pub mod pairing;

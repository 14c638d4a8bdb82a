//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! - [`commands`]: the `senet` command line, one file per subcommand.
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft).
//! - [`ai`]: the computer opponent (evaluation, expectiminimax search, levels).
pub mod ai;
pub mod commands;
pub mod engine;

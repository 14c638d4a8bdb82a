//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! - [`commands`]: the `senet` command line, one file per subcommand.
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft).
pub mod commands;
pub mod engine;

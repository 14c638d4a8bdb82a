//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft).
pub mod commands;
pub mod engine;

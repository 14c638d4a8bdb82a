//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft).
//! - [`web`]: the browser client (`web/` embedded), served at `/`, `/r/{id}` and `/assets/`.
pub mod commands;
pub mod engine;
pub mod web;

//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! - [`commands`]: the `senet` command line, one file per subcommand.
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft).
//! - [`ai`]: the computer opponent (evaluation, expectiminimax search, levels).
//! - [`protocol`]: the wire format: HTTP bodies, WebSocket messages, events, error codes.
//! - [`lessons`]: the `/learn` page's rule lessons, each answer derived by the engine.
//! - [`fairness`]: verifiable throws: seeds, `seed_hash`, the HMAC throw formula.
//! - [`secrets`]: room ids, seat tokens and their hashes, from the OS generator.
//! - [`store`]: the `Store` trait (rooms, seats, event log) and its SQLite and PostgreSQL implementations.
//! - [`server`]: HTTP + WebSocket front (axum): router, handlers, connection tasks, shutdown.
//! - [`config`]: `senet serve` flags and environment variables.
//! - [`room`]: live rooms: the registry, one task per room, the pure game state machine.
//! - [`telemetry`]: logs (tracing) and metrics (Prometheus): every metric name in one place.
//! - [`loadgen`]: `senet loadgen`, scripted players measuring a running server.
//! - [`os`]: open-file limit and resident memory of a process.
//! - [`web`]: the browser client (`web/` embedded), served at `/`, `/r/{id}`, `/learn` and `/assets/`.
pub mod ai;
pub mod commands;
pub mod config;
pub mod engine;
pub mod fairness;
pub mod lessons;
pub mod loadgen;
pub mod os;
pub mod protocol;
pub mod room;
pub mod secrets;
pub mod server;
pub mod store;
pub mod telemetry;
pub mod web;

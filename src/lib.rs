//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft).
//! - [`telemetry`]: logs (tracing) and metrics (Prometheus): every metric name in one place.
//! - [`loadgen`]: `senet loadgen`, scripted players measuring a running server.
//! - [`http1`]: a minimal HTTP/1.1 client for the project's own tools.
//! - [`os`]: open-file limit and resident memory of a process.
pub mod commands;
pub mod engine;
pub mod http1;
pub mod loadgen;
pub mod os;
pub mod telemetry;

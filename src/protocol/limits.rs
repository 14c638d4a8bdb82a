//! Sizes of the wire that both ends rely on: the largest frame a client may send, and the read
//! buffer a socket is given (the load generator's echo baseline sizes its sockets the same, so
//! that both are measured with the same memory per connection); and how long a drain's pause of
//! a clock may stand.

/// Largest text frame a client may send; a larger one closes the socket with 1009.
pub const MAX_FRAME_BYTES: usize = 4 * 1024;

/// Bytes read from a socket at once. tungstenite allocates this buffer for every connection (its
/// default, 128 KiB, would be 1.25 GiB for ten thousand sockets); client frames are tens of
/// bytes and at most 4 KiB, and a larger frame is simply read in several calls.
pub const DEFAULT_WS_READ_BUFFER: usize = 512;

/// How long a `paused` clock stands at most (milliseconds): the player on turn is usually back
/// within a second or two of their instance's drain, and a pause must never stall a game.
pub const PAUSE_LIMIT_MS: i64 = 10_000;

//! Throws anyone can verify: each room commits to a secret seed by
//! publishing its SHA-256, and throw `n` is an HMAC of the room id, both
//! players' client seeds and `n` under that seed. The seed is revealed
//! when the game ends, so anyone can recompute every throw (`senet verify`).
//!
//! Commit before learning: the server must not know a client seed when it
//! draws the seed, or it could draw until the throws suit it. So the seed is
//! drawn when the room is made, its hash is logged in `started`, and only
//! then does the server take client seeds: a `seed` message from each seated
//! player (the `client-seed` event), until the game's first throw; the
//! computer's is drawn from the OS generator and logged right after
//! `started`. A seat that sends none plays with the empty seed, logged as
//! such (no event). The log's order is the proof, and `senet verify` checks it.

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::engine::Sticks;
use crate::secrets::random_bytes;

/// A room's secret throw seed.
pub type Seed = [u8; 32];

/// A fresh seed from the OS generator.
pub fn new_seed() -> Seed {
    random_bytes()
}

/// Hex SHA-256 of the seed: published from the start.
pub fn seed_hash(seed: &Seed) -> String {
    hex::encode(Sha256::digest(seed))
}

/// Throw number `n` (from 0) of a room: the low 4 bits of the first byte of
/// `HMAC-SHA256(key = seed, message = "<room>:<black seed>:<white seed>:<n>")`.
pub fn sticks_for(seed: &Seed, room: &str, black_seed: &str, white_seed: &str, n: u32) -> Sticks {
    let mut mac = Hmac::<Sha256>::new_from_slice(seed).expect("HMAC takes keys of any length");
    mac.update(format!("{room}:{black_seed}:{white_seed}:{n}").as_bytes());
    Sticks::from_bits(mac.finalize().into_bytes()[0])
}

/// Parses a revealed seed (64 hex digits).
pub fn parse_seed(hex_text: &str) -> Option<Seed> {
    hex::decode(hex_text).ok()?.try_into().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers, computed independently with Python:
    /// `hmac.new(bytes(range(32)), b"r:b:w:0", hashlib.sha256).digest()[0] & 15`.
    #[test]
    fn known_answers() {
        let seed: Seed = std::array::from_fn(|i| i as u8);
        assert_eq!(
            seed_hash(&seed),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
        let bits: Vec<u8> = (0..6)
            .map(|n| sticks_for(&seed, "r", "b", "w", n).bits())
            .collect();
        assert_eq!(bits, KNOWN_BITS);
    }

    const KNOWN_BITS: [u8; 6] = [9, 8, 7, 2, 7, 11];

    #[test]
    fn seeds_round_trip_through_hex() {
        let seed = new_seed();
        assert_eq!(parse_seed(&hex::encode(seed)), Some(seed));
        assert_eq!(parse_seed("00"), None);
    }
}

//! A player's identity: a public id anyone may see, a secret only their browser holds (in an
//! `HttpOnly` cookie; the store keeps its SHA-256 hash), and one-time transfer codes that move
//! the secret to another device.
//!
//! A transfer code is 8 characters from a 32-letter alphabet without look-alikes (no 0/O, 1/I),
//! so 40 bits: typed by hand, valid [`TRANSFER_CODE_TTL_MS`], used once, kept only hashed.
//! Guessing is bounded by the per-address quota on redemptions, not by the code's length alone.

use crate::protocol::UnixMs;
use crate::secrets::{TokenHash, hash_token, new_token, random_bytes};

/// How long a transfer code may be used: 10 minutes.
pub const TRANSFER_CODE_TTL_MS: UnixMs = 10 * 60_000;

/// The characters of a transfer code: digits and capitals without 0, 1, I and O.
const CODE_ALPHABET: &[u8; 32] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
const CODE_LEN: usize = 8;

/// A new player's public id: 64 random bits as 16 hex digits (public, so no secret rides on it).
pub fn new_player_id() -> String {
    hex::encode(random_bytes::<8>())
}

/// Whether `text` has the shape of a player id (checked before any lookup).
pub fn is_player_id(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A new player secret (256 bits) and the hash the store keeps of it.
pub fn new_secret() -> (String, TokenHash) {
    let secret = new_token();
    let hash = hash_token(&secret);
    (secret, hash)
}

/// A new transfer code, as shown to the player.
pub fn new_transfer_code() -> String {
    random_bytes::<CODE_LEN>()
        .iter()
        .map(|b| char::from(CODE_ALPHABET[usize::from(b % 32)]))
        .collect()
}

/// A transfer code as typed (any case, spaces or dashes between groups) in its stored form:
/// its hash, or `None` if it cannot be a code.
pub fn transfer_code_hash(typed: &str) -> Option<TokenHash> {
    let code: String = typed
        .chars()
        .filter(|c| !matches!(c, ' ' | '-'))
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let well_formed = code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b));
    well_formed.then(|| hash_token(&code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_secrets_and_codes_are_random_and_well_formed() {
        let (a, b) = (new_player_id(), new_player_id());
        assert!(is_player_id(&a) && a != b);
        assert!(!is_player_id("0123456789ABCDEF") && !is_player_id("../x"));
        let (secret, hash) = new_secret();
        assert_eq!(hash, hash_token(&secret));
        let code = new_transfer_code();
        assert_eq!(code.len(), CODE_LEN);
        assert_ne!(code, new_transfer_code());
        let typed = format!("{}-{}", &code[..4], code[4..].to_lowercase());
        assert_eq!(transfer_code_hash(&typed), Some(hash_token(&code)));
    }

    #[test]
    fn malformed_codes_are_refused_before_any_lookup() {
        for bad in ["", "ABCD", "ABCDEFGH9", "ABCD0FGH", "ABCDIFGH", "ÄBCDEFGH"] {
            assert_eq!(transfer_code_hash(bad), None, "{bad:?}");
        }
    }
}

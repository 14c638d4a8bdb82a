//! Random secrets and identifiers from the operating system's generator:
//! room ids, seat tokens (kept only as SHA-256 hashes) and throw seeds.

use rand::TryRng;
use rand::rngs::SysRng;
use sha2::{Digest, Sha256};

/// `N` bytes from the OS generator. Panics only if the OS cannot give
/// entropy, in which case no secret could be made safely anyway.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    SysRng
        .try_fill_bytes(&mut bytes)
        .expect("the operating system's random generator failed");
    bytes
}

/// A room id: 128 random bits as 32 lowercase hex digits.
pub fn new_room_id() -> String {
    hex::encode(random_bytes::<16>())
}

/// The room a rematch of `room` opens: derived from its id, so every instance that decides the
/// rematch names the same room, and opening it twice finds it there.
pub fn rematch_room_id(room: &str) -> String {
    let digest = Sha256::new()
        .chain_update(b"senet-rematch:")
        .chain_update(room.as_bytes())
        .finalize();
    hex::encode(&digest[..16])
}

/// Whether `text` has the shape of a room id (checked before any lookup).
pub fn is_room_id(text: &str) -> bool {
    text.len() == 32 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A seat token: 256 random bits as 64 hex digits. Shown once to its holder.
pub fn new_token() -> String {
    hex::encode(random_bytes::<32>())
}

/// What the store keeps instead of a token.
pub type TokenHash = [u8; 32];

pub fn hash_token(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_tokens_are_random_and_well_formed() {
        let (a, b) = (new_room_id(), new_room_id());
        assert!(is_room_id(&a) && is_room_id(&b));
        assert_ne!(a, b);
        assert!(!is_room_id("../etc/passwd"));
        assert_eq!(new_token().len(), 64);
        assert_ne!(hash_token("a"), hash_token("b"));
        let rematch = rematch_room_id(&a);
        assert!(is_room_id(&rematch));
        assert_eq!(rematch, rematch_room_id(&a));
        assert_ne!(rematch, rematch_room_id(&b));
    }
}

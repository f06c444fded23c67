//! Game ids and seat tokens: how they are drawn, hashed for storage and checked.
//!
//! A seat token is the only proof of being a player, so it is 128 random bits
//! from the thread-local CSPRNG, persisted only as its SHA-256 hash and compared
//! in constant time. Game ids are public and only need to be hard to guess
//! in bulk (8 base-62 characters, about 47 bits).

use rand::Rng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Length of a game id.
pub const GAME_ID_LEN: usize = 8;

/// A fresh random game id.
pub fn new_game_id() -> String {
    let mut rng = rand::rng();
    let mut bytes = [0u8; GAME_ID_LEN];
    rng.fill_bytes(&mut bytes);
    // 248 is the largest multiple of 62 below 256; rejecting above it keeps
    // the characters uniform.
    let mut id = String::with_capacity(GAME_ID_LEN);
    while id.len() < GAME_ID_LEN {
        let mut byte = [0u8; 1];
        rng.fill_bytes(&mut byte);
        if byte[0] < 248 {
            id.push(ALPHABET[usize::from(byte[0] % 62)] as char);
        }
    }
    id
}

/// Whether a text can be a game id (checked before any lookup, so that odd
/// paths never reach the store).
pub fn is_game_id(text: &str) -> bool {
    text.len() == GAME_ID_LEN && text.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// A fair random choice (the creator's colour when it asked for random).
pub fn coin_flip() -> bool {
    let mut byte = [0u8; 1];
    rand::rng().fill_bytes(&mut byte);
    byte[0] & 1 == 0
}

/// A fresh seat token: 32 lowercase hex characters.
pub fn new_token() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex(&bytes)
}

/// The stored form of a token: hex SHA-256.
pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

/// Whether `token` hashes to `stored` (constant time in the hash comparison).
pub fn token_matches(token: &str, stored: &str) -> bool {
    let hashed = token_hash(token);
    hashed.as_bytes().ct_eq(stored.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_are_eight_alphanumerics_and_differ() {
        let a = new_game_id();
        let b = new_game_id();
        assert!(is_game_id(&a), "{a}");
        assert_ne!(a, b);
        assert!(!is_game_id("abc"));
        assert!(!is_game_id("abcd/efg"));
    }

    #[test]
    fn a_token_matches_its_hash_and_no_other() {
        let token = new_token();
        assert_eq!(token.len(), 32);
        let stored = token_hash(&token);
        assert!(token_matches(&token, &stored));
        assert!(!token_matches(&new_token(), &stored));
        assert!(!token_matches("", &stored));
    }
}

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

/// The seat token of a player in the rematch of game `game_id`, derived from its seat token
/// `token` of that game: HMAC-SHA256 (key: the old token; message: `rematch:` + the old game id),
/// cut to 128 bits like every token, hex.
///
/// Why derived and not drawn: the server keeps no token, only hashes. A random rematch token
/// exists only in memory, so a player away when the rematch was agreed lost its seat with the
/// room (a restart, or just the room retiring). A derived one is recomputed whenever the old
/// token says hello to the old game, and the old game's offer can carry its hash, taken while
/// the offerer was connected. Nothing stored lets anyone compute it (the HMAC key is the token,
/// known only to its holder). The old game's id, not the new one, is the message: the offer is
/// stored before the new game exists, and a game has at most one rematch.
pub fn rematch_token(token: &str, game_id: &str) -> String {
    let mac = hmac_sha256(token.as_bytes(), format!("rematch:{game_id}").as_bytes());
    hex(&mac[..16])
}

/// HMAC-SHA256 (RFC 2104) over the `sha2` crate: a dozen lines rather than one more
/// dependency; checked against RFC 4231 in the tests.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    const BLOCK: usize = 64;
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
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

    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        // Test case 2 (short key) and test case 6 (key longer than a block).
        assert_eq!(
            hex(&hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        assert_eq!(
            hex(&hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn a_rematch_token_is_fixed_by_the_old_token_and_game_and_looks_like_a_token() {
        let token = new_token();
        let derived = rematch_token(&token, "AbCd1234");
        assert_eq!(derived, rematch_token(&token, "AbCd1234"));
        assert_eq!(derived.len(), 32);
        assert!(derived.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(derived, rematch_token(&token, "AbCd1235"));
        assert_ne!(derived, rematch_token(&new_token(), "AbCd1234"));
        assert_ne!(derived, token);
    }
}

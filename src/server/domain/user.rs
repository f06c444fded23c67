//! The values that name a user: [`UserId`] (the store's key, never shown), [`Username`] (checked
//! once, at the edge) and [`Account`] (a signed-in user, as a request or a seat knows it).

use std::fmt;

use serde::{Serialize, Serializer};

/// A user's key in the store. Stable for the account's life; never part of a URL or a message
/// (usernames are), so that ids cannot be enumerated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(pub i64);

/// Why a text is not a username.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UsernameError {
    #[error("a username has {min} to {max} characters", min = Username::MIN_LEN, max = Username::MAX_LEN)]
    Length,
    #[error("a username has only the letters A-Z and a-z, digits, '_' and '-'")]
    Character,
}

/// A username as the user spelled it: 2-20 characters of `[A-Za-z0-9_-]`.
///
/// ASCII only on purpose: it rules out every unicode confusable (Cyrillic `а` for Latin `a`,
/// full-width letters, zero-width joiners) by construction, so no table of confusables is needed.
/// Uniqueness is case-insensitive ([`Username::key`]): `Alice` and `alice` are one user.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Username(String);

impl Username {
    pub const MIN_LEN: usize = 2;
    pub const MAX_LEN: usize = 20;

    /// Checks a username from outside. The length is checked first and in bytes, so a 10 kB
    /// input is refused without looking at its characters.
    pub fn parse(text: &str) -> Result<Username, UsernameError> {
        if !(Self::MIN_LEN..=Self::MAX_LEN).contains(&text.len()) {
            return Err(UsernameError::Length);
        }
        if !text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        {
            return Err(UsernameError::Character);
        }
        Ok(Username(text.to_owned()))
    }

    /// The spelling the user chose (shown everywhere).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The unique key: the name in lower case (stored, looked up, compared).
    pub fn key(&self) -> String {
        self.0.to_ascii_lowercase()
    }
}

impl fmt::Display for Username {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for Username {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A signed-in user: what a session cookie resolves to, and what owns a seat created or taken
/// while signed in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub id: UserId,
    pub name: Username,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_username_has_two_to_twenty_safe_ascii_characters() {
        assert!(Username::parse("ab").is_ok());
        assert!(Username::parse("A_b-9").is_ok());
        assert!(Username::parse(&"x".repeat(20)).is_ok());
        assert_eq!(Username::parse("a"), Err(UsernameError::Length));
        assert_eq!(Username::parse(&"x".repeat(21)), Err(UsernameError::Length));
        assert_eq!(Username::parse(""), Err(UsernameError::Length));
        assert_eq!(Username::parse("a b"), Err(UsernameError::Character));
        assert_eq!(Username::parse("a.b"), Err(UsernameError::Character));
    }

    #[test]
    fn confusables_and_huge_names_are_refused() {
        // Cyrillic 'а' (2 bytes) in an otherwise Latin name.
        assert_eq!(
            Username::parse("\u{430}lice"),
            Err(UsernameError::Character)
        );
        // Full-width letters, and a zero-width joiner.
        assert_eq!(
            Username::parse("\u{ff41}\u{ff42}"),
            Err(UsernameError::Character)
        );
        assert_eq!(
            Username::parse("al\u{200d}ice"),
            Err(UsernameError::Character)
        );
        assert_eq!(
            Username::parse(&"a".repeat(10_000)),
            Err(UsernameError::Length)
        );
    }

    #[test]
    fn usernames_are_unique_case_insensitively() {
        let a = Username::parse("Alice").unwrap();
        let b = Username::parse("aLICE").unwrap();
        assert_ne!(a, b);
        assert_eq!(a.key(), b.key());
        assert_eq!(a.as_str(), "Alice");
    }
}

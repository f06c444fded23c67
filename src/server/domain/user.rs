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
    /// Only for a new account ([`Username::parse_new`]).
    #[error("this name is reserved: chat shows it for players who are not signed in")]
    Reserved,
}

/// Names no new account may take, compared case-insensitively: the labels chat shows for an
/// author who is not signed in (`white`, `black`, `anonymous`: src/server/chat/rules.rs,
/// `author_label`) and the names a reader would take for the site speaking (`system`,
/// `moderator`). Chat shows a signed-in author by name, so an account named `White` would read
/// exactly like the anonymous White player.
///
/// Only these exact names: `Anonymous1` or `whiteknight` read as a person's name, not as a
/// label, and look-alike spellings (Cyrillic letters, zero-width characters) cannot be
/// usernames at all. Accounts that already have one of these names keep it: only registration
/// checks the list, never login or the store.
///
/// `deleted` (issue 32) is [`DELETED_LABEL`]: the name a deleted account's games and chat lines
/// show instead of theirs.
pub const RESERVED_USERNAMES: [&str; 6] = [
    "white",
    "black",
    "anonymous",
    "system",
    "moderator",
    DELETED_LABEL,
];

/// What a deleted account's games and chat lines show instead of its name (issue 32): the
/// store rewrites the stored names to it when the account is deleted. A valid username (the
/// stored events must still decode), reserved for new accounts.
pub const DELETED_LABEL: &str = "deleted";

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

    /// Checks the name of a new account: [`Username::parse`], and not one of
    /// [`RESERVED_USERNAMES`]. Everything that reads an existing name (login, the store, a
    /// profile) uses [`Username::parse`], so an account made before the list keeps working.
    pub fn parse_new(text: &str) -> Result<Username, UsernameError> {
        let name = Username::parse(text)?;
        if name.is_reserved() {
            return Err(UsernameError::Reserved);
        }
        Ok(name)
    }

    /// Whether this name is one of [`RESERVED_USERNAMES`], in any case.
    pub fn is_reserved(&self) -> bool {
        RESERVED_USERNAMES
            .iter()
            .any(|reserved| self.0.eq_ignore_ascii_case(reserved))
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

/// Where an account stands (issue 32; stored as its text in `users.status`). Only an active
/// account signs in and has sessions; a closed one (by a moderator) keeps its row and games but
/// cannot log in; a deleted one (by its owner) keeps only what others' games need, and its name
/// can never be registered again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccountStatus {
    Active,
    Closed,
    Deleted,
}

/// A stored status text this program does not know (a damaged or newer database).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown account status {0:?}")]
pub struct UnknownAccountStatus(pub String);

impl AccountStatus {
    /// The stored text: `active`, `closed` or `deleted`.
    pub fn as_str(self) -> &'static str {
        match self {
            AccountStatus::Active => "active",
            AccountStatus::Closed => "closed",
            AccountStatus::Deleted => "deleted",
        }
    }

    pub fn parse(text: &str) -> Result<AccountStatus, UnknownAccountStatus> {
        match text {
            "active" => Ok(AccountStatus::Active),
            "closed" => Ok(AccountStatus::Closed),
            "deleted" => Ok(AccountStatus::Deleted),
            other => Err(UnknownAccountStatus(other.to_owned())),
        }
    }

    /// Whether the account may sign in and keep sessions.
    pub fn is_active(self) -> bool {
        self == AccountStatus::Active
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_account_status_reads_back_its_stored_text_and_nothing_else() {
        for status in [
            AccountStatus::Active,
            AccountStatus::Closed,
            AccountStatus::Deleted,
        ] {
            assert_eq!(AccountStatus::parse(status.as_str()), Ok(status));
        }
        assert!(AccountStatus::parse("Active").is_err());
        assert!(AccountStatus::parse("").is_err());
        assert!(AccountStatus::Active.is_active());
        assert!(!AccountStatus::Closed.is_active());
        assert!(!AccountStatus::Deleted.is_active());
    }

    #[test]
    fn the_deleted_label_is_a_username_no_new_account_may_take() {
        let label = Username::parse(DELETED_LABEL).unwrap();
        assert!(label.is_reserved());
        assert_eq!(Username::parse_new("Deleted"), Err(UsernameError::Reserved));
    }

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
    fn a_new_account_may_not_take_a_chat_label_or_a_staff_name_in_any_case() {
        for name in [
            "white",
            "White",
            "WHITE",
            "black",
            "BLACK",
            "bLaCk",
            "anonymous",
            "Anonymous",
            "system",
            "System",
            "moderator",
            "MODERATOR",
        ] {
            assert_eq!(
                Username::parse_new(name),
                Err(UsernameError::Reserved),
                "{name}"
            );
        }
    }

    #[test]
    fn only_the_exact_reserved_names_are_refused_and_the_usual_checks_come_first() {
        for name in [
            "whiteknight",
            "Anonymous1",
            "black_",
            "sys",
            "mod",
            "White-Rook",
        ] {
            assert!(Username::parse_new(name).is_ok(), "{name}");
        }
        assert_eq!(Username::parse_new("w"), Err(UsernameError::Length));
        assert_eq!(Username::parse_new("white!"), Err(UsernameError::Character));
    }

    #[test]
    fn an_existing_reserved_name_still_parses_for_login_and_the_store() {
        let name = Username::parse("White").unwrap();
        assert!(name.is_reserved());
        assert_eq!(name.as_str(), "White");
        assert_eq!(name.key(), "white");
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

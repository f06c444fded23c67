//! Passwords: checked once at the edge ([`Password`]), hashed and verified with Argon2id at
//! OWASP's parameters ([`Passwords`]).
//!
//! Hashing costs ~19 MiB and tens of milliseconds of CPU by design, so it never runs on the
//! async runtime: each hash or verification runs on tokio's blocking pool, and at most
//! `max_concurrent` of them at once (a semaphore): a flood of logins waits its turn instead of
//! taking every blocking thread (which the store's reads also need) and all the memory.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use tokio::sync::{OnceCell, Semaphore};

/// A password as typed: 8 to 128 characters (unicode scalar values, not bytes, so that a
/// password in any script has the same bounds). Never printed: its `Debug` is redacted and it
/// has no `Display`.
pub struct Password(String);

/// A password outside 8-128 characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a password has {min} to {max} characters", min = Password::MIN_CHARS, max = Password::MAX_CHARS)]
pub struct WeakPassword;

impl Password {
    pub const MIN_CHARS: usize = 8;
    pub const MAX_CHARS: usize = 128;

    /// Checks a password from outside. Bytes are checked first (a character is at most 4
    /// bytes), so a huge input is refused without counting its characters.
    pub fn parse(text: &str) -> Result<Password, WeakPassword> {
        if text.len() > 4 * Self::MAX_CHARS {
            return Err(WeakPassword);
        }
        let chars = text.chars().count();
        if (Self::MIN_CHARS..=Self::MAX_CHARS).contains(&chars) {
            Ok(Password(text.to_owned()))
        } else {
            Err(WeakPassword)
        }
    }

    /// A valid password that is never checked against a real hash: what a login whose password
    /// is out of bounds verifies against the dummy hash, to take the usual time.
    pub(super) fn placeholder() -> Password {
        Password("not a password of anyone".to_owned())
    }

    fn bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(<redacted>)")
    }
}

/// Why a hash could not be made (never a wrong password: that is `Ok(false)`).
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    #[error("password hashing failed: {0}")]
    Argon2(String),
    #[error("the password hashing task failed")]
    Task,
    #[error("the password hasher is shut down")]
    Closed,
}

/// Argon2id, OWASP's first recommended configuration: 19 MiB (19456 KiB), 2 passes, 1 lane.
pub const M_COST_KIB: u32 = 19_456;
pub const T_COST: u32 = 2;
pub const P_COST: u32 = 1;

fn argon2() -> Result<Argon2<'static>, HashError> {
    let params = Params::new(M_COST_KIB, T_COST, P_COST, None)
        .map_err(|e| HashError::Argon2(e.to_string()))?;
    Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, params))
}

/// Hashes a password (random 16-byte salt from the OS) to its PHC string. Blocking.
pub fn hash_blocking(password: &Password) -> Result<String, HashError> {
    let hash = argon2()?
        .hash_password(password.bytes())
        .map_err(|e| HashError::Argon2(e.to_string()))?;
    Ok(hash.to_string())
}

/// Whether `password` is the one `hash` was made from. A hash that does not parse is a wrong
/// password (and logged by the caller's store, not here). Blocking.
pub fn verify_blocking(password: &Password, hash: &str) -> bool {
    match argon2() {
        Ok(argon2) => argon2.verify_password(password.bytes(), hash).is_ok(),
        Err(_) => false,
    }
}

/// The hasher: bounded concurrency on the blocking pool, and the dummy hash an unknown user's
/// login is verified against.
pub struct Passwords {
    permits: Arc<Semaphore>,
    /// The hash of a random password nobody knows, made on first use with the same parameters
    /// as real ones: verifying against it costs what verifying a real user's hash costs.
    dummy: OnceCell<String>,
    /// Verifications run, real or dummy (every login costs exactly one).
    verifications: AtomicU64,
}

impl Passwords {
    pub fn new(max_concurrent: usize) -> Passwords {
        Passwords {
            permits: Arc::new(Semaphore::new(max_concurrent.max(1))),
            dummy: OnceCell::new(),
            verifications: AtomicU64::new(0),
        }
    }

    /// Verifications run since start, real or against the dummy hash.
    pub fn verifications(&self) -> u64 {
        self.verifications.load(Ordering::Relaxed)
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, HashError> {
        let permit = Arc::clone(&self.permits)
            .acquire_owned()
            .await
            .map_err(|_| HashError::Closed)?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|_| HashError::Task)
    }

    /// The PHC string of a new password.
    pub async fn hash(&self, password: Password) -> Result<String, HashError> {
        self.blocking(move || hash_blocking(&password)).await?
    }

    /// Whether `password` matches `hash`; with `None` (no such user) it is checked against the
    /// dummy hash, which takes the same time, and the answer is false.
    pub async fn verify(
        &self,
        password: Password,
        hash: Option<String>,
    ) -> Result<bool, HashError> {
        let known = hash.is_some();
        let hash = match hash {
            Some(hash) => hash,
            None => self.dummy_hash().await?.to_owned(),
        };
        let matches = self
            .blocking(move || verify_blocking(&password, &hash))
            .await?;
        self.verifications.fetch_add(1, Ordering::Relaxed);
        Ok(known && matches)
    }

    async fn dummy_hash(&self) -> Result<&str, HashError> {
        self.dummy
            .get_or_try_init(|| async {
                let secret = super::session::SessionId::new().map_err(|_| HashError::Task)?;
                let password = Password(secret.reveal().to_owned());
                self.blocking(move || hash_blocking(&password)).await?
            })
            .await
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_have_eight_to_128_characters_counted_as_characters_not_bytes() {
        assert!(Password::parse("12345678").is_ok());
        assert_eq!(Password::parse("1234567").err(), Some(WeakPassword));
        assert!(Password::parse(&"x".repeat(128)).is_ok());
        assert_eq!(Password::parse(&"x".repeat(129)).err(), Some(WeakPassword));
        // 8 characters of 3 bytes each: 24 bytes, still 8 characters.
        assert!(Password::parse("€€€€€€€€").is_ok());
        assert_eq!(Password::parse("€€€€€€€").err(), Some(WeakPassword));
        // 128 four-byte characters (512 bytes) are fine; 129 are not.
        assert!(Password::parse(&"😀".repeat(128)).is_ok());
        assert_eq!(Password::parse(&"😀".repeat(129)).err(), Some(WeakPassword));
        assert_eq!(
            Password::parse(&"x".repeat(10_000)).err(),
            Some(WeakPassword)
        );
    }

    #[test]
    fn a_password_is_never_printed() {
        let password = Password::parse("hunter2hunter2").unwrap();
        assert!(!format!("{password:?}").contains("hunter2"));
    }

    #[test]
    fn a_hash_is_argon2id_at_owasp_parameters_and_verifies_only_its_password() {
        let password = Password::parse("correct horse").unwrap();
        let hash = hash_blocking(&password).unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(verify_blocking(&password, &hash));
        assert!(!verify_blocking(
            &Password::parse("wrong horse").unwrap(),
            &hash
        ));
        assert!(!verify_blocking(&password, "not a hash"));
        // Salted: the same password hashes differently each time.
        assert_ne!(hash_blocking(&password).unwrap(), hash);
    }

    #[tokio::test]
    async fn an_unknown_user_is_verified_against_the_dummy_hash_and_refused() {
        let passwords = Passwords::new(1);
        let password = || Password::parse("whatever-it-is").unwrap();
        assert!(!passwords.verify(password(), None).await.unwrap());
        let hash = passwords.hash(password()).await.unwrap();
        assert!(passwords.verify(password(), Some(hash)).await.unwrap());
        assert!(
            passwords
                .dummy
                .get()
                .is_some_and(|h| h.starts_with("$argon2id$"))
        );
    }
}

//! [`Accounts`]: registering, logging in and out, and resolving a session cookie to its
//! [`Account`]. The HTTP routes (`routes.rs`) and extractors (`extract.rs`) are thin over it.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::http::HeaderMap;

use super::error;
use super::limits::KeyedLimiter;
use super::password::{Password, Passwords};
use super::session::{self, SessionId};
use crate::server::config::AccountLimits;
use crate::server::domain::user::{Account, AccountStatus, UserId, Username, UsernameError};
use crate::server::game::now_ms;
use crate::server::store::{SessionHash, Store, StoreError};
use crate::server::web::ApiError;
use crate::server::web::ratelimit::AddressLimiter;

/// The account side of the server: one per process, shared by every request.
pub struct Accounts {
    store: Arc<dyn Store>,
    passwords: Passwords,
    register_by_address: AddressLimiter,
    login_by_address: AddressLimiter,
    /// By [`Username::key`]: guessing one account's password from many addresses.
    login_by_username: KeyedLimiter<String>,
    /// `--public-url`'s origin (`https://host[:port]`), if set.
    public_origin: Option<String>,
    /// Whether cookies get `Secure` (the site is served over https).
    secure_cookies: bool,
    /// Data archives per account (issue 32): each one replays every game of the account.
    archives_by_user: KeyedLimiter<UserId>,
}

/// Data archives an account may download at once, and how fast the allowance comes back
/// (one an hour): enough for a user, too few to turn the replay of every game into a load.
pub const ARCHIVE_BURST: f64 = 2.0;
pub const ARCHIVES_PER_SEC: f64 = 1.0 / 3600.0;

/// A new session, to be set as the cookie.
pub struct NewSession {
    pub account: Account,
    pub id: SessionId,
}

impl Accounts {
    pub fn new(
        store: Arc<dyn Store>,
        limits: &AccountLimits,
        public_origin: Option<String>,
    ) -> Accounts {
        let secure_cookies = public_origin
            .as_deref()
            .is_some_and(|origin| origin.starts_with("https://"));
        Accounts {
            store,
            passwords: Passwords::new(limits.max_concurrent_hashes),
            register_by_address: AddressLimiter::new(
                limits.register_per_hour / 3600.0,
                limits.register_per_hour,
            ),
            login_by_address: AddressLimiter::new(
                limits.login_per_min / 60.0,
                limits.login_per_min,
            ),
            login_by_username: KeyedLimiter::new(
                limits.login_per_min_per_username / 60.0,
                limits.login_per_min_per_username,
            ),
            public_origin,
            secure_cookies,
            archives_by_user: KeyedLimiter::new(ARCHIVES_PER_SEC, ARCHIVE_BURST),
        }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    pub fn public_origin(&self) -> Option<&str> {
        self.public_origin.as_deref()
    }

    pub fn secure_cookies(&self) -> bool {
        self.secure_cookies
    }

    /// Password verifications run since start (one per login that passed the rate limits).
    pub fn verifications(&self) -> u64 {
        self.passwords.verifications()
    }

    /// A new user with a session. The cheap checks come first (name, password, the address's
    /// limit, a taken name), so that refusals cost no hashing.
    pub async fn register(
        &self,
        peer: IpAddr,
        username: &str,
        password: &str,
    ) -> Result<NewSession, ApiError> {
        // Only here is the reserved list checked: login and everything else read a name with
        // `Username::parse`, so an account that has such a name from before keeps working.
        let name = Username::parse_new(username).map_err(|e| match e {
            UsernameError::Reserved => error::reserved_username(),
            UsernameError::Length | UsernameError::Character => error::bad_username(),
        })?;
        let password = Password::parse(password).map_err(|_| error::weak_password())?;
        self.register_by_address
            .check(peer, Instant::now())
            .map_err(|l| {
                error::rate_limited("accounts created from your address", l.retry_after_secs)
            })?;
        if self
            .store
            .find_user(&name)
            .await
            .map_err(error::store_failure)?
            .is_some()
        {
            return Err(error::username_taken());
        }
        let hash = self
            .passwords
            .hash(password)
            .await
            .map_err(error::store_failure)?;
        let id = match self.store.create_user(name.clone(), hash, now_ms()).await {
            Ok(id) => id,
            // Taken meanwhile by a concurrent registration of the same name.
            Err(StoreError::UsernameTaken) => return Err(error::username_taken()),
            Err(e) => return Err(error::store_failure(e)),
        };
        tracing::info!(user = %name, "account registered");
        self.new_session(Account { id, name }).await
    }

    /// A session for a user whose password matches. Every failure (a name that cannot exist,
    /// an unknown user, a wrong password) is the same `bad_credentials`, after the same work:
    /// a password verification, against the dummy hash when there is no user.
    pub async fn login(
        &self,
        peer: IpAddr,
        username: &str,
        password: &str,
    ) -> Result<NewSession, ApiError> {
        let now = Instant::now();
        self.login_by_address.check(peer, now).map_err(|l| {
            error::rate_limited("login attempts from your address", l.retry_after_secs)
        })?;
        let name = Username::parse(username).ok();
        if let Some(name) = &name {
            self.login_by_username
                .check(&name.key(), now)
                .map_err(|l| {
                    error::rate_limited("login attempts for this username", l.retry_after_secs)
                })?;
        }
        let user = match &name {
            Some(name) => self
                .store
                .find_user(name)
                .await
                .map_err(error::store_failure)?,
            None => None,
        };
        // A password that could never have been set cannot match; it is still verified (against
        // the dummy hash) so that the answer takes the usual time.
        // A deleted account (issue 32) is no user at all: its hash is gone, and the answer is
        // the unknown user's, after the same work.
        let user = user.filter(|user| user.status != AccountStatus::Deleted);
        let (password, hash, user) = match (Password::parse(password), user) {
            (Ok(password), Some(user)) => (password, Some(user.password_hash.clone()), Some(user)),
            (Ok(password), None) => (password, None, None),
            (Err(_), _) => (Password::placeholder(), None, None),
        };
        let matches = self
            .passwords
            .verify(password, hash)
            .await
            .map_err(error::store_failure)?;
        match user {
            // Said only to whoever knows the password: a guesser learns nothing more.
            Some(user) if matches && user.status == AccountStatus::Closed => {
                Err(error::account_closed())
            }
            Some(user) if matches => self.new_session(user.account).await,
            _ => Err(error::bad_credentials()),
        }
    }

    async fn new_session(&self, account: Account) -> Result<NewSession, ApiError> {
        let id = SessionId::new().map_err(error::store_failure)?;
        self.store
            .create_session(id.hash(), account.id, now_ms())
            .await
            .map_err(error::store_failure)?;
        Ok(NewSession { account, id })
    }

    /// The account of the request's session cookie: None without a (well-formed, live) one.
    pub async fn account_of(&self, headers: &HeaderMap) -> Result<Option<Account>, StoreError> {
        match session::from_headers(headers) {
            None => Ok(None),
            Some(id) => self.store.session_account(id.hash(), now_ms()).await,
        }
    }

    /// Checks a signed-in user's own password (issue 32: a password change, a deletion),
    /// under the same limits as a login (per address and per username), with the same Argon2
    /// verification. A wrong one is 403 `wrong_password` (not 401: the session is fine).
    pub async fn check_own_password(
        &self,
        peer: IpAddr,
        account: &Account,
        password: &str,
    ) -> Result<(), ApiError> {
        let now = Instant::now();
        self.login_by_address.check(peer, now).map_err(|l| {
            error::rate_limited("password attempts from your address", l.retry_after_secs)
        })?;
        self.login_by_username
            .check(&account.name.key(), now)
            .map_err(|l| {
                error::rate_limited("password attempts for this account", l.retry_after_secs)
            })?;
        let hash = self
            .store
            .user_by_id(account.id)
            .await
            .map_err(error::store_failure)?
            .map(|user| user.password_hash);
        let password = Password::parse(password).unwrap_or_else(|_| Password::placeholder());
        let matches = self
            .passwords
            .verify(password, hash)
            .await
            .map_err(error::store_failure)?;
        if matches {
            Ok(())
        } else {
            Err(error::wrong_password())
        }
    }

    /// The PHC hash of a new password, checked like a registration's.
    pub async fn hash_new_password(&self, password: &str) -> Result<String, ApiError> {
        let password = Password::parse(password).map_err(|_| error::weak_password())?;
        self.passwords
            .hash(password)
            .await
            .map_err(error::store_failure)
    }

    /// Takes one data archive of the account's allowance.
    pub fn take_archive(&self, user: UserId) -> Result<(), ApiError> {
        self.archives_by_user
            .check(&user, Instant::now())
            .map_err(|l| error::rate_limited("data archives", l.retry_after_secs))
    }

    /// Forgets the request's session, if it has one.
    pub async fn logout(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        let Some(id) = session::from_headers(headers) else {
            return Ok(());
        };
        let hash: SessionHash = id.hash();
        self.store
            .delete_session(hash)
            .await
            .map_err(error::store_failure)
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;
    use crate::server::store::MemoryStore;

    fn accounts() -> Accounts {
        let limits = AccountLimits {
            register_per_hour: 0.0,
            login_per_min: 0.0,
            login_per_min_per_username: 0.0,
            max_concurrent_hashes: 1,
        };
        Accounts::new(Arc::new(MemoryStore::new()), &limits, None)
    }

    const PEER: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST);

    #[tokio::test]
    async fn every_failed_login_costs_one_password_verification_like_a_real_one() {
        let accounts = accounts();
        assert!(
            accounts
                .register(PEER, "gina", "ginas password")
                .await
                .is_ok()
        );
        let before = accounts.verifications();
        for (name, password) in [
            ("gina", "ginas password"),        // right
            ("gina", "wrong password"),        // wrong password
            ("nobody", "any password"),        // unknown user
            ("no such name!", "any password"), // a name that cannot exist
            ("gina", "short"),                 // a password that cannot be hers
        ] {
            let counted = accounts.verifications();
            let result = accounts.login(PEER, name, password).await;
            assert_eq!(
                accounts.verifications(),
                counted + 1,
                "{name} / {password}: one verification"
            );
            if password == "ginas password" {
                assert!(result.is_ok());
            } else {
                let error = result.err().map(|e| (e.status, e.code, e.message));
                let expected = error::bad_credentials();
                assert_eq!(
                    error,
                    Some((expected.status, expected.code, expected.message))
                );
            }
        }
        assert_eq!(accounts.verifications(), before + 5);
    }

    #[tokio::test]
    async fn a_session_resolves_to_its_account_until_logout() {
        let accounts = accounts();
        let new = accounts
            .register(PEER, "hugo", "hugos password")
            .await
            .expect("registered");
        let mut headers = HeaderMap::new();
        let cookie = format!("{}={}", session::COOKIE, new.id.reveal());
        headers.insert(
            axum::http::header::COOKIE,
            axum::http::HeaderValue::from_str(&cookie).expect("header"),
        );
        assert_eq!(
            accounts.account_of(&headers).await.expect("read"),
            Some(new.account)
        );
        assert!(accounts.logout(&headers).await.is_ok());
        assert_eq!(accounts.account_of(&headers).await.expect("read"), None);
        assert_eq!(
            accounts.account_of(&HeaderMap::new()).await.expect("read"),
            None
        );
    }
}

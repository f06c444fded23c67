//! The typed errors of the account routes: each is an [`AccountCode`] (its wire `code`) with the
//! status it is answered with, built as an [`ApiError`] like every other error of the API.

use axum::http::StatusCode;
use serde::Serialize;

use crate::server::play::protocol::{ErrorCode, Refusal};
use crate::server::web::ApiError;

/// Codes only the account routes (and the Origin check) answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AccountCode {
    /// 409: another user has this name (in any case).
    UsernameTaken,
    /// 400: not 2-20 characters of `[A-Za-z0-9_-]`, or, for a new account, a reserved name.
    BadUsername,
    /// 400: a password of fewer than 8 or more than 128 characters.
    WeakPassword,
    /// 401: unknown user or wrong password (one answer for both, on purpose).
    BadCredentials,
    /// 401: the route needs a live session and the request has none.
    NotLoggedIn,
    /// 403: a state-changing request with the session cookie from another site's page.
    BadOrigin,
    /// 400: a settings object with an unknown setting or a bad value (the message names it).
    BadSetting,
    /// 403: the right password of an account a moderator closed (issue 32).
    AccountClosed,
    /// 409: the account cannot be deleted while one of its games goes on (issue 32).
    GamesInProgress,
    /// 404: no session of this account has that id (issue 32).
    NoSuchSession,
    /// 403: the password given to confirm a change of the account is not its password.
    WrongPassword,
}

fn error(status: StatusCode, code: AccountCode, message: &str) -> ApiError {
    ApiError::new(status, code, message)
}

pub fn username_taken() -> ApiError {
    error(
        StatusCode::CONFLICT,
        AccountCode::UsernameTaken,
        "that username is taken",
    )
}

pub fn bad_username() -> ApiError {
    error(
        StatusCode::BAD_REQUEST,
        AccountCode::BadUsername,
        "a username has 2 to 20 characters: letters A-Z a-z, digits, '_' and '-'",
    )
}

/// A new account asked for a reserved name (`white`, `anonymous`...): the code of a bad
/// username, so that clients need nothing new, with a message that says why.
pub fn reserved_username() -> ApiError {
    error(
        StatusCode::BAD_REQUEST,
        AccountCode::BadUsername,
        "this name is reserved: chat shows it for players who are not signed in",
    )
}

pub fn weak_password() -> ApiError {
    error(
        StatusCode::BAD_REQUEST,
        AccountCode::WeakPassword,
        "a password has 8 to 128 characters",
    )
}

/// The one answer to a failed login, whichever part was wrong: the same bytes for an unknown
/// user and a wrong password, so that the answer does not tell which names exist.
pub fn bad_credentials() -> ApiError {
    error(
        StatusCode::UNAUTHORIZED,
        AccountCode::BadCredentials,
        "wrong username or password",
    )
}

/// Login with the right password of a closed account. Only the password's owner sees it, so
/// saying why is no leak.
pub fn account_closed() -> ApiError {
    error(
        StatusCode::FORBIDDEN,
        AccountCode::AccountClosed,
        "this account was closed by a moderator",
    )
}

pub fn games_in_progress() -> ApiError {
    error(
        StatusCode::CONFLICT,
        AccountCode::GamesInProgress,
        "finish (or abort) your games first: an account cannot be deleted while it plays",
    )
}

pub fn wrong_password() -> ApiError {
    error(
        StatusCode::FORBIDDEN,
        AccountCode::WrongPassword,
        "this is not your password",
    )
}

pub fn no_such_session() -> ApiError {
    error(
        StatusCode::NOT_FOUND,
        AccountCode::NoSuchSession,
        "no session of yours has this id",
    )
}

pub fn not_logged_in() -> ApiError {
    error(
        StatusCode::UNAUTHORIZED,
        AccountCode::NotLoggedIn,
        "you are not logged in",
    )
}

pub fn bad_origin() -> ApiError {
    error(
        StatusCode::FORBIDDEN,
        AccountCode::BadOrigin,
        "this request must come from a page of this site",
    )
}

/// 429 with the seconds to wait.
pub fn rate_limited(what: &str, retry_after_secs: u64) -> ApiError {
    ApiError::from(Refusal::new(
        ErrorCode::RateLimited,
        format!("too many {what}; try again in {retry_after_secs} s"),
    ))
    .retry_after(retry_after_secs)
}

/// The store failed (503 `store_failure`, as for games). The message is the store's, which
/// never holds a password, a hash or a session id.
pub fn store_failure(e: impl std::fmt::Display) -> ApiError {
    ApiError::from(Refusal::new(ErrorCode::StoreFailure, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::web::Code;

    #[test]
    fn account_codes_have_snake_case_wire_names() {
        let names: Vec<String> = [
            AccountCode::UsernameTaken,
            AccountCode::BadUsername,
            AccountCode::WeakPassword,
            AccountCode::BadCredentials,
            AccountCode::NotLoggedIn,
            AccountCode::BadOrigin,
            AccountCode::BadSetting,
            AccountCode::AccountClosed,
            AccountCode::GamesInProgress,
            AccountCode::NoSuchSession,
            AccountCode::WrongPassword,
        ]
        .iter()
        .map(|code| serde_json::to_value(Code::of(*code)).unwrap().to_string())
        .collect();
        assert_eq!(
            names,
            [
                "\"username_taken\"",
                "\"bad_username\"",
                "\"weak_password\"",
                "\"bad_credentials\"",
                "\"not_logged_in\"",
                "\"bad_origin\"",
                "\"bad_setting\"",
                "\"account_closed\"",
                "\"games_in_progress\"",
                "\"no_such_session\"",
                "\"wrong_password\""
            ]
        );
    }
}

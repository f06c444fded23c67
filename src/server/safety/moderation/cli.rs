//! `marseillais admin grant-mod NAME` / `revoke-mod NAME`: the moderator role is given and
//! taken on the command line only (whoever runs it holds the server's store), never by the
//! web. Logged in the moderation log as done by `console`.

use crate::server::domain::user::Username;
use crate::server::store::{MOD_CONSOLE, ModAction, ModActionKind, Store, StoreError};

/// What `admin` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleChange {
    Grant,
    Revoke,
}

#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("no such user: {0}")]
    NoSuchUser(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Gives or takes the role of the user named `name`, logged as `console`; returns the
/// sentence to print.
pub async fn change_role(
    store: &dyn Store,
    name: &str,
    change: RoleChange,
    now_ms: i64,
) -> Result<String, AdminError> {
    let username = Username::parse(name).map_err(|_| AdminError::NoSuchUser(name.to_owned()))?;
    let user = store
        .find_user(&username)
        .await?
        .ok_or_else(|| AdminError::NoSuchUser(name.to_owned()))?;
    let (kind, reason, said) = match change {
        RoleChange::Grant => (ModActionKind::GrantMod, "granted on the console", "is now"),
        RoleChange::Revoke => (
            ModActionKind::RevokeMod,
            "revoked on the console",
            "is no longer",
        ),
    };
    store
        .moderate(ModAction {
            moderator: MOD_CONSOLE.to_owned(),
            target: user.account.id,
            kind,
            reason: reason.to_owned(),
            at_ms: now_ms,
        })
        .await?;
    Ok(format!("{} {said} a moderator", user.account.name))
}

//! A unit of the writer's work: what a caller sends ([`Work`], in a [`Pending`] with the channel
//! it awaits), what it gets back ([`Done`]), how a failure of Postgres is classified for that
//! unit ([`UnitFailure`]) and the fence a commit is written under. Shared by the writer and its
//! pipelined fast path.

use tokio::sync::oneshot;
use tokio_postgres::error::SqlState;

use crate::server::domain::chat_line::NewChatLine;
use crate::server::domain::user::{UserId, Username};
use crate::server::store::{Commit, Fence, SessionHash, StoreError};

/// A unit of work waiting for the writer (stored all or none), with the channel its caller
/// awaits.
pub(super) struct Pending {
    pub(super) work: Work,
    pub(super) done: oneshot::Sender<Result<Done, StoreError>>,
}

/// What a caller asks the writer to store.
pub(super) enum Work {
    Commits(Vec<Commit>),
    CreateUser {
        username: Username,
        password_hash: String,
        at_ms: i64,
    },
    CreateSession {
        hash: SessionHash,
        user: UserId,
        at_ms: i64,
    },
    TouchSession {
        hash: SessionHash,
        at_ms: i64,
    },
    DeleteSession {
        hash: SessionHash,
    },
    AppendChat(NewChatLine),
    SetSettings {
        user: UserId,
        json: String,
        at_ms: i64,
    },
}

/// What a unit of work gave back once stored.
#[derive(Debug)]
pub(super) enum Done {
    Stored,
    User(UserId),
    ChatLine(i64),
}

/// A failure while writing one unit: refused (nothing wrong with the batch), an error of
/// Postgres about this unit alone, or one that loses the transaction.
pub(super) enum UnitFailure {
    Refused(StoreError),
    ThisUnit(tokio_postgres::Error),
    WholeBatch(tokio_postgres::Error),
}

/// Errors that are about the statement (a constraint, a bad value), after which rolling back to
/// the unit's savepoint leaves the transaction usable. Anything else (no SQLSTATE at all: the
/// connection; or the server shutting down, out of disk, ...) loses the batch.
pub(super) fn classify(e: tokio_postgres::Error) -> UnitFailure {
    let local = e.code().is_some_and(|code| {
        let class = &code.code()[..2];
        // 22: data exception, 23: integrity constraint violation.
        class == "22" || class == "23" || *code == SqlState::UNDEFINED_TABLE
    });
    if local && !e.is_closed() {
        UnitFailure::ThisUnit(e)
    } else {
        UnitFailure::WholeBatch(e)
    }
}

/// Whether a commit under `fence` may be written, given the game's lease row `(node, epoch)`
/// (None: the game was never claimed). Only the node and the epoch count, not the expiry: this
/// is the classic fencing token. A takeover increments the epoch, so a stale owner is refused
/// as soon as anyone took the game over; an owner whose lease merely lapsed while nobody took
/// over may still write, which is safe (nobody else runs the game), and saves a move from
/// being refused for a renewal that came a little late.
pub(super) fn fence_holds(fence: &Fence, lease: Option<(&str, i64)>) -> bool {
    lease.is_some_and(|(node, epoch)| node == fence.node && epoch == fence.epoch)
}

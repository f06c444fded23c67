//! A PostgreSQL error as the store reports it: [`StoreError::Io`] with the SQLSTATE and the
//! server's message, never the connection string.

use crate::server::store::StoreError;

/// A Postgres error as the store reports it. The text never holds a password: tokio-postgres
/// does not put the connection string in its errors.
pub(crate) fn pg_error(e: tokio_postgres::Error) -> StoreError {
    StoreError::Io(pg_message(&e))
}

/// The text of a Postgres error: the SQLSTATE and the server's message, or the client's (a lost
/// connection).
pub(crate) fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("PostgreSQL: {}: {}", db.code().code(), db.message()),
        None => format!("PostgreSQL: {e}"),
    }
}

pub(super) fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    StoreError::Io(format!("PostgreSQL is unreachable: {e}"))
}

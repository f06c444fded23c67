//! MemoryStore (the store of tests and of a server run without a data directory) against the
//! store contract (tests/support/store_contract), the same tests as every backend.

use marseillais::server::store::MemoryStore;

/// An empty store, for the contract.
async fn fresh(_label: &str) -> Option<((), MemoryStore)> {
    Some(((), MemoryStore::new()))
}

crate::store_contract_tests!(fresh, one_node);

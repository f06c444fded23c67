//! The computer's proof of holding its seat. A person proves a seat with its token; the
//! computer has none (its seat hash is one no token hashes to), so it proves it with a value
//! that only this module can make: the room seats a connection made with it in the game's
//! computer seat, and in no other. Nothing on the wire (no client message, no HTTP request)
//! carries or makes one, so nobody outside the server can sit in the computer's seat.

/// Proof that a connection is the server's own computer player. Not `Clone`: one per attach.
#[derive(Debug)]
pub struct ComputerProof(());

impl ComputerProof {
    /// Only the computer's driver ([`super`]) makes one.
    pub(super) fn new() -> ComputerProof {
        ComputerProof(())
    }
}

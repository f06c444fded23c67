//! Comma PGN (placeholder, being written).

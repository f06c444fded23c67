//! SAN (placeholder, being written).

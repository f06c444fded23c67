//! A node's name (`--node-id`): what leases, bus lanes and logs call this process. One
//! process per name: two processes with one name would each think they own the other's games.

use std::fmt;
use std::str::FromStr;

use rand::RngExt;

/// 1 to 40 of `[A-Za-z0-9_-]` (it is part of Redis channel names and log lines).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(String);

/// A `--node-id` that is not 1 to 40 of `[A-Za-z0-9_-]`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a node id is 1 to 40 of A-Z a-z 0-9 _ -, not {0:?}")]
pub struct BadNodeId(pub String);

impl NodeId {
    /// The default: `node-` and 8 random hex digits.
    pub fn random() -> NodeId {
        let n: u32 = rand::rng().random();
        NodeId(format!("node-{n:08x}"))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for NodeId {
    type Err = BadNodeId;

    fn from_str(s: &str) -> Result<NodeId, BadNodeId> {
        let ok = (1..=40).contains(&s.len())
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if ok {
            Ok(NodeId(s.to_owned()))
        } else {
            Err(BadNodeId(s.to_owned()))
        }
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_id_is_1_to_40_safe_characters() {
        assert!("n1".parse::<NodeId>().is_ok());
        assert!("eu-west_2".parse::<NodeId>().is_ok());
        assert!("".parse::<NodeId>().is_err());
        assert!("a b".parse::<NodeId>().is_err());
        assert!("a:b".parse::<NodeId>().is_err());
        assert!("x".repeat(41).parse::<NodeId>().is_err());
        assert!(NodeId::random().as_str().parse::<NodeId>().is_ok());
    }
}

//! A sub-move on the wire is its UCI text (`e2e4`, `a7a8q`, castling as the
//! king's two-square step): serde helpers for [`crate::rules::SubMove`] fields
//! (`#[serde(with = "submove")]`) and lists (`#[serde(with = "submoves")]`),
//! so that payloads hold typed sub-moves and the rules stay free of serde.

/// A [`SubMove`] on the wire: its UCI text (`e2e4`, `a7a8q`).
pub mod submove {
    use serde::{Deserializer, Serializer};

    use crate::rules::SubMove;

    pub fn serialize<S: Serializer>(mv: &SubMove, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&mv.uci())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<SubMove, D::Error> {
        deserializer.deserialize_str(UciVisitor)
    }

    /// Parses the text where it lies (no copy).
    struct UciVisitor;

    impl serde::de::Visitor<'_> for UciVisitor {
        type Value = SubMove;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a sub-move in UCI notation")
        }

        fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<SubMove, E> {
            text.parse().map_err(E::custom)
        }
    }

    /// One sub-move in a list: the same text form.
    pub(super) struct Uci(pub SubMove);

    impl serde::Serialize for Uci {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_str(&self.0.uci())
        }
    }

    impl<'de> serde::Deserialize<'de> for Uci {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Uci, D::Error> {
            deserializer.deserialize_str(UciVisitor).map(Uci)
        }
    }
}

/// A list of [`SubMove`]s on the wire: their UCI texts.
pub mod submoves {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::submove::Uci;
    use crate::rules::SubMove;

    pub fn serialize<S: Serializer>(moves: &[SubMove], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(moves.len()))?;
        for mv in moves {
            seq.serialize_element(&Uci(*mv))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<SubMove>, D::Error> {
        let moves = Vec::<Uci>::deserialize(deserializer)?;
        Ok(moves.into_iter().map(|Uci(mv)| mv).collect())
    }
}

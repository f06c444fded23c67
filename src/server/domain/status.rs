//! Where a game is in its life (open, playing, finished): what the store lists by, the wire
//! shows and the game core decides.

use std::str::FromStr;

/// Where a game is in its life; drives the lobby listing and startup recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GameStatus {
    Open,
    Playing,
    Finished,
}

impl GameStatus {
    /// The text stored in the database and used in `?status=` (same as the serde form).
    pub fn as_str(self) -> &'static str {
        match self {
            GameStatus::Open => "open",
            GameStatus::Playing => "playing",
            GameStatus::Finished => "finished",
        }
    }
}

/// A status text that is none of `open`, `playing`, `finished`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game status {0:?}")]
pub struct UnknownStatus(pub String);

impl FromStr for GameStatus {
    type Err = UnknownStatus;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "open" => Ok(GameStatus::Open),
            "playing" => Ok(GameStatus::Playing),
            "finished" => Ok(GameStatus::Finished),
            other => Err(UnknownStatus(other.to_owned())),
        }
    }
}

//! The whole public state of a game, in its two wire forms: the `state`
//! message ([`StateMsg`]) and the HTTP `GET /api/games/{id}` reply
//! ([`GameSnapshot`]). Both are made of two parts:
//! - [`SharedState`], what changes only with the version (the record, the
//!   position, offers, the outcome): the same for every reader, so the room
//!   serializes it once per version ([`SharedText`]) and reuses the text for
//!   every socket until the next event (148 KB for a game of 3,000 sub-moves);
//! - [`LiveState`], what depends on the moment and the reader (clocks, the
//!   first-turn timer, presence, `you`): small, written per message.
//!
//! [`GameSummary`] is a game as the lobby lists it (`GET /api/games`): the
//! text the store keeps in each listing row.
//!
//! Key order is part of the wire: `state`'s `d` is the live fields (sorted)
//! followed by the shared fields (sorted), as the two parts were joined
//! when they were `json!` objects; the HTTP reply has all keys sorted and no
//! `you`. Each struct declares its fields in its wire order.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::GameStatus;
use super::names::{ClaimName, GameResult, PhaseName, Reason, Side};
use super::players::{Players, RatingsMsg};
use super::uci::{submove, submoves};
use super::views::{ClockView, CorrespondenceView, OutcomeView};
use crate::rules::SubMove;
use crate::server::game::{TimeControl, Variant};

/// One seat as the public sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatView {
    /// At least one socket holds this seat's token.
    pub connected: bool,
    pub taken: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seats {
    pub black: SeatView,
    pub white: SeatView,
}

/// The part of the public state that depends on the moment and the reader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiveState {
    pub clock: Option<ClockView>,
    /// Correspondence games only (absent otherwise): days per turn and the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<CorrespondenceView>,
    pub first_move_ms: Option<u64>,
    pub seats: Seats,
    pub spectators: usize,
    /// The reader's seat (`null`: a spectator).
    pub you: Option<Side>,
}

/// The computer player of a game against the computer: its seat and level. Only such games
/// have the field at all (`skip_serializing_if`), so every other game's bytes are unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputerView {
    pub color: Side,
    pub level: u8,
}

/// One sub-move of the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveRecord {
    pub color: Side,
    pub san: String,
    #[serde(with = "submove")]
    pub uci: SubMove,
}

/// The part of the public state that changes only with the version.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedState {
    /// An arena game's arena and who berserked (absent for every other game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<ArenaGameView>,
    pub check: bool,
    pub claims: Vec<ClaimName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<ComputerView>,
    pub draw_offer: Option<Side>,
    pub fen: String,
    pub id: String,
    #[serde(with = "submoves")]
    pub legal: Vec<SubMove>,
    pub moves: Vec<MoveRecord>,
    /// Set once the game has ended.
    pub outcome: Option<OutcomeView>,
    pub phase: PhaseName,
    /// The signed-in players (absent when neither seat has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    /// Written only for a rated game.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// A finished rated game's rating changes, once stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingsMsg>,
    /// The rematch game's id, once agreed.
    pub rematch: Option<String>,
    pub rematch_offer: Option<Side>,
    pub start_fen: String,
    pub status: GameStatus,
    pub turn: Side,
    pub variant: Variant,
}

/// The arena part of a game's state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaGameView {
    pub berserk: BerserkView,
    pub id: String,
}

/// Who berserked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BerserkView {
    pub black: bool,
    pub white: bool,
}

/// A [`SharedState`] serialized: built only by [`SharedText::new`], so it
/// always holds exactly the text the typed value writes. Cheap to clone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedText(Arc<str>);

impl SharedText {
    /// No shared fields (`{}`): what a reader gets if the shared part could not be written.
    pub fn empty() -> SharedText {
        SharedText(Arc::from("{}"))
    }

    pub fn new(shared: &SharedState) -> Result<SharedText, serde_json::Error> {
        serde_json::to_string(shared).map(|text| SharedText(Arc::from(text)))
    }

    /// The serialized object, braces included.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The typed value back (tests, and the generic [`Serialize`] path).
    pub fn parse(&self) -> Result<SharedState, serde_json::Error> {
        serde_json::from_str(&self.0)
    }
}

/// The `d` of a `state` message: this reader's live fields, and the shared
/// part as serialized once for every reader.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateMsg {
    pub live: LiveState,
    pub shared: SharedText,
}

impl StateMsg {
    pub fn new(live: LiveState, shared: &SharedState) -> Result<StateMsg, serde_json::Error> {
        Ok(StateMsg {
            live,
            shared: SharedText::new(shared)?,
        })
    }

    /// Appends the `d` object to `out`: the live fields then the shared
    /// ones, joined as text (the shared text is not parsed again).
    pub(super) fn write_d(&self, out: &mut String) -> Result<(), serde_json::Error> {
        let live = serde_json::to_string(&self.live)?;
        let parts = [object_fields(&live), object_fields(self.shared.as_str())];
        out.push('{');
        let mut first = true;
        for part in parts.into_iter().filter(|p| !p.trim().is_empty()) {
            if !first {
                out.push(',');
            }
            out.push_str(part);
            first = false;
        }
        out.push('}');
        Ok(())
    }
}

/// The text between the braces of a serialized JSON object.
fn object_fields(object: &str) -> &str {
    object
        .trim()
        .strip_prefix('{')
        .and_then(|o| o.strip_suffix('}'))
        .unwrap_or_default()
}

/// `state`'s `d` as one flat object in its wire order (live, then shared):
/// the typed form that [`StateMsg`]'s serde goes through.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateFields {
    clock: Option<ClockView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    correspondence: Option<CorrespondenceView>,
    first_move_ms: Option<u64>,
    seats: Seats,
    spectators: usize,
    you: Option<Side>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arena: Option<ArenaGameView>,
    check: bool,
    claims: Vec<ClaimName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    computer: Option<ComputerView>,
    draw_offer: Option<Side>,
    fen: String,
    id: String,
    #[serde(with = "submoves")]
    legal: Vec<SubMove>,
    moves: Vec<MoveRecord>,
    outcome: Option<OutcomeView>,
    phase: PhaseName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    players: Option<Players>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    rated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ratings: Option<RatingsMsg>,
    rematch: Option<String>,
    rematch_offer: Option<Side>,
    start_fen: String,
    status: GameStatus,
    turn: Side,
    variant: Variant,
}

impl StateFields {
    fn new(live: LiveState, shared: SharedState) -> StateFields {
        let LiveState {
            clock,
            correspondence,
            first_move_ms,
            seats,
            spectators,
            you,
        } = live;
        let SharedState {
            arena,
            check,
            claims,
            computer,
            draw_offer,
            fen,
            id,
            legal,
            moves,
            outcome,
            phase,
            players,
            rated,
            ratings,
            rematch,
            rematch_offer,
            start_fen,
            status,
            turn,
            variant,
        } = shared;
        StateFields {
            clock,
            correspondence,
            first_move_ms,
            seats,
            spectators,
            you,
            arena,
            check,
            claims,
            computer,
            draw_offer,
            fen,
            id,
            legal,
            moves,
            outcome,
            phase,
            players,
            rated,
            ratings,
            rematch,
            rematch_offer,
            start_fen,
            status,
            turn,
            variant,
        }
    }

    fn split(self) -> (LiveState, SharedState) {
        let live = LiveState {
            clock: self.clock,
            correspondence: self.correspondence,
            first_move_ms: self.first_move_ms,
            seats: self.seats,
            spectators: self.spectators,
            you: self.you,
        };
        let shared = SharedState {
            arena: self.arena,
            check: self.check,
            claims: self.claims,
            computer: self.computer,
            draw_offer: self.draw_offer,
            fen: self.fen,
            id: self.id,
            legal: self.legal,
            moves: self.moves,
            outcome: self.outcome,
            phase: self.phase,
            players: self.players,
            rated: self.rated,
            ratings: self.ratings,
            rematch: self.rematch,
            rematch_offer: self.rematch_offer,
            start_fen: self.start_fen,
            status: self.status,
            turn: self.turn,
            variant: self.variant,
        };
        (live, shared)
    }
}

impl Serialize for StateMsg {
    /// The generic path (any serializer): re-reads the shared text. The
    /// server writes `state` with [`super::ServerMsg::to_text`] instead.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let shared = self.shared.parse().map_err(serde::ser::Error::custom)?;
        StateFields::new(self.live.clone(), shared).serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for StateMsg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<StateMsg, D::Error> {
        let (live, shared) = StateFields::deserialize(deserializer)?.split();
        StateMsg::new(live, &shared).map_err(serde::de::Error::custom)
    }
}

/// The HTTP `GET /api/games/{id}` reply: both parts merged, keys sorted,
/// no `you` (nobody in particular is reading).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSnapshot {
    /// An arena game's arena and who berserked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<ArenaGameView>,
    pub check: bool,
    pub claims: Vec<ClaimName>,
    pub clock: Option<ClockView>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<ComputerView>,
    /// Correspondence games only (absent otherwise): days per turn and the deadline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correspondence: Option<CorrespondenceView>,
    pub draw_offer: Option<Side>,
    pub fen: String,
    pub first_move_ms: Option<u64>,
    pub id: String,
    #[serde(with = "submoves")]
    pub legal: Vec<SubMove>,
    pub moves: Vec<MoveRecord>,
    pub outcome: Option<OutcomeView>,
    pub phase: PhaseName,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingsMsg>,
    pub rematch: Option<String>,
    pub rematch_offer: Option<Side>,
    pub seats: Seats,
    pub spectators: usize,
    pub start_fen: String,
    pub status: GameStatus,
    pub turn: Side,
    pub variant: Variant,
}

impl GameSnapshot {
    /// The reply for these parts (`live.you` is dropped).
    pub fn new(live: LiveState, shared: SharedState) -> GameSnapshot {
        let StateFields {
            clock,
            correspondence,
            first_move_ms,
            seats,
            spectators,
            you: _,
            arena,
            check,
            claims,
            computer,
            draw_offer,
            fen,
            id,
            legal,
            moves,
            outcome,
            phase,
            players,
            rated,
            ratings,
            rematch,
            rematch_offer,
            start_fen,
            status,
            turn,
            variant,
        } = StateFields::new(live, shared);
        GameSnapshot {
            arena,
            check,
            claims,
            clock,
            computer,
            correspondence,
            draw_offer,
            fen,
            first_move_ms,
            id,
            legal,
            moves,
            outcome,
            phase,
            players,
            rated,
            ratings,
            rematch,
            rematch_offer,
            seats,
            spectators,
            start_fen,
            status,
            turn,
            variant,
        }
    }
}

/// Which seats are taken, in a [`GameSummary`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatsTaken {
    pub black: bool,
    pub white: bool,
}

/// A game as the lobby lists it: the `summary` of its listing row, written
/// with every commit and served as-is in `GET /api/games` (`games`). Keys
/// sorted. Rows written by older versions are served as they were stored,
/// so the HTTP route need not read them with this type.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSummary {
    /// Set on a game an arena tournament paired (issue 29): what its standings read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena: Option<ArenaMark>,
    /// A live clock's spec, or `{"days_per_turn"}` (correspondence).
    pub clock: Option<TimeControl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub computer: Option<ComputerView>,
    pub created_ms: i64,
    /// A correspondence game being played: when the side to move's turn runs out (Unix ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<i64>,
    pub id: String,
    /// The signed-in players' names (and ratings before the game, in a rated one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players: Option<Players>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rated: bool,
    /// Set once the game has ended, with `result`.
    pub reason: Option<Reason>,
    pub result: Option<GameResult>,
    pub seats: SeatsTaken,
    pub status: GameStatus,
    pub sub_moves: usize,
    /// A correspondence game being played: the side to move (what "your turn" is read from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Side>,
    pub updated_ms: i64,
    pub variant: Variant,
}

/// The arena part of a game's summary: which arena paired it and how far it went (an arena
/// scores a short draw and a short berserk win differently).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArenaMark {
    pub id: String,
    /// Numbered turns begun (`1. e4 e5,Nc6 2. Qh5` is 2).
    pub turns: u32,
    /// Who berserked, White then Black.
    pub berserk: [bool; 2],
}

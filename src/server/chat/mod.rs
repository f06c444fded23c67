//! Chat (issue 12): in each game a `player` room (both players write and read) and a
//! `spectator` room (spectators write; a player reads it only after asking to), and one `lobby`
//! room on `/ws/lobby` (everyone reads, anyone writes). A line is stored before anyone sees it,
//! like a move, but it is not a game event: it has no `v`, and the game's version numbering and
//! resync history do not change; a (re)connecting client gets the recent lines as
//! `chat_history` instead.
//!
//! | concept | module |
//! |---|---|
//! | the text of a line: control characters stripped, 140 characters at most | [`text`] |
//! | the rooms, who may write and read which, the author's label | [`rules`] |
//! | a stored line and its wire form | [`line`] |
//! | a connection's chat rate | [`rate`] |

pub mod line;
pub mod rate;
pub mod rules;
pub mod text;

pub use line::{ChatLine, NewChatLine};
pub use rate::ChatRate;
pub use rules::{ChatRole, ChatRoom, NotAllowed, author_label};
pub use text::{ChatText, ChatTextError, MAX_CHAT_CHARS};

/// Most lines of one room sent on connect (`chat_history`).
pub const HISTORY_LINES: u32 = 50;

/// Lines a room keeps in the store (each game's two, and the lobby's): an append deletes the
/// room's lines older than its last `KEPT_LINES`, in the same transaction. Bounds the table by
/// games x 2,000 lines plus 1,000, whatever a chatty pair or the lobby writes: at the chat rate
/// (3 lines per 5 s per connection) nothing older is ever shown anyway (50 on connect).
pub const KEPT_LINES: u32 = 1000;

//! Chat (issue 12): in each game a `player` room (both players write and read) and a
//! `spectator` room (spectators write; a player reads it only after asking to), and one `lobby`
//! room on `/ws/lobby` (everyone reads, anyone writes). A line is stored before anyone sees it,
//! like a move, but it is not a game event: it has no `v`, and the game's version numbering and
//! resync history do not change; a (re)connecting client gets the recent lines as
//! `chat_history` instead.
//!
//! | concept | module |
//! |---|---|
//! | the text of a line (control characters stripped, 140 characters at most), the rooms, a stored line: values of [`crate::server::domain`] | |
//! | the rooms, who may write and read which, the author's label | [`rules`] |
//! | a stored line's wire form | [`line`] |
//! | a connection's chat rate | [`rate`] |
//! | a client's chat lines over all its connections | [`flood`] |
//! | the rules that need no moderator: the word list and the flood rule, over every line | [`guard`] |
//! | a writer's repeated lines and lines per window, and its silence | [`repeat`] |
//! | the word list, and the folding of case and accents | [`words`] |

pub mod flood;
pub mod guard;
pub mod line;
pub mod rate;
pub mod repeat;
pub mod rules;
pub mod words;

pub use crate::server::domain::chat::{ChatText, ChatTextError, MAX_CHAT_CHARS};
pub use crate::server::domain::chat_line::{ChatLine, NewChatLine};
pub use rate::ChatRate;
pub use rules::{ChatRole, ChatRoom, NotAllowed, author_label, spectator_room_open};

/// Most lines of one room sent on connect (`chat_history`).
pub const HISTORY_LINES: u32 = 50;

pub use crate::server::store::KEPT_LINES;

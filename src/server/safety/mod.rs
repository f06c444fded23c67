//! Safety and moderation (issue 32): what players do to protect themselves and what the server
//! does against abuse, one room per part.
//!
//! | part | module |
//! |---|---|
//! | blocks between accounts and where they apply (chat, challenges, pairing, open games) | [`blocks`] |

pub mod blocks;

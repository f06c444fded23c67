//! The rules of blocks, pure: who may block whom ([`may_block`]) and what a block hides from
//! whom ([`Relations`]). A block works both ways: the lines of the blocker are hidden from the
//! blocked and the blocked's from the blocker, so everything here is about a user's relations
//! either way.

use std::collections::HashSet;

use crate::server::domain::user::UserId;
use crate::server::store::BlockRelation;

/// The most accounts one user may block: bounds the list, the relations read with every chat
/// line, and what a pool seek carries.
pub const MAX_BLOCKS: usize = 500;

/// Why a block is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BlockRefused {
    #[error("you cannot block yourself")]
    Yourself,
    #[error("you block {MAX_BLOCKS} users already: unblock one first")]
    TooMany,
}

/// Whether `me` may block `target`, given how many `me` blocks now and whether `target` is
/// among them (blocking again is a no-op, allowed even at the cap).
pub fn may_block(
    me: UserId,
    target: UserId,
    blocked_now: usize,
    already: bool,
) -> Result<(), BlockRefused> {
    if me == target {
        return Err(BlockRefused::Yourself);
    }
    if !already && blocked_now >= MAX_BLOCKS {
        return Err(BlockRefused::TooMany);
    }
    Ok(())
}

/// The accounts in a block with one user (the author of a line, or a reader), either way, or
/// `Unknown` when the store could not say: then everything that could be hidden is (a
/// failure must not show a line to someone who blocked its author).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Relations {
    #[default]
    None,
    Known {
        ids: HashSet<UserId>,
        /// Lowercased usernames: a line names its signed-in author by name only.
        names: HashSet<String>,
    },
    /// Of this user; the store failed.
    Unknown(Option<UserId>),
}

impl Relations {
    pub fn of(rows: &[BlockRelation]) -> Relations {
        if rows.is_empty() {
            return Relations::None;
        }
        Relations::Known {
            ids: rows.iter().map(|r| r.user).collect(),
            names: rows.iter().map(|r| r.name.to_lowercase()).collect(),
        }
    }

    /// Several users' relations as one (a connection may read as its seat's account and as its
    /// session's).
    pub fn union(self, other: Relations) -> Relations {
        match (self, other) {
            (Relations::None, x) | (x, Relations::None) => x,
            (Relations::Unknown(me), _) | (_, Relations::Unknown(me)) => Relations::Unknown(me),
            (
                Relations::Known { mut ids, mut names },
                Relations::Known {
                    ids: more_ids,
                    names: more_names,
                },
            ) => {
                ids.extend(more_ids);
                names.extend(more_names);
                Relations::Known { ids, names }
            }
        }
    }

    /// Whether a line of the user these relations are of is hidden from the account `reader`
    /// (a reader without an account sees it: nobody blocks an anonymous page).
    pub fn hides_reader(&self, reader: UserId) -> bool {
        match self {
            Relations::None => false,
            Relations::Known { ids, .. } => ids.contains(&reader),
            Relations::Unknown(me) => *me != Some(reader),
        }
    }

    /// Whether the reader these relations are of must not see a line whose signed-in author is
    /// `author` (the `user` of a chat line; `None`: an anonymous line, never hidden).
    pub fn hides_author(&self, author: Option<&str>) -> bool {
        let Some(author) = author else {
            return false;
        };
        match self {
            Relations::None => false,
            Relations::Known { names, .. } => names.contains(&author.to_lowercase()),
            Relations::Unknown(_) => true,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self, Relations::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(id: i64, name: &str) -> BlockRelation {
        BlockRelation {
            user: UserId(id),
            name: name.to_owned(),
        }
    }

    #[test]
    fn nobody_can_block_themselves() {
        assert_eq!(
            may_block(UserId(1), UserId(1), 0, false),
            Err(BlockRefused::Yourself)
        );
        assert_eq!(may_block(UserId(1), UserId(2), 0, false), Ok(()));
    }

    #[test]
    fn a_user_blocks_at_most_the_cap_but_may_block_again_one_already_blocked() {
        let full = MAX_BLOCKS;
        assert_eq!(
            may_block(UserId(1), UserId(2), full, false),
            Err(BlockRefused::TooMany)
        );
        assert_eq!(may_block(UserId(1), UserId(2), full, true), Ok(()));
        assert_eq!(may_block(UserId(1), UserId(2), full - 1, false), Ok(()));
    }

    #[test]
    fn a_line_is_hidden_from_the_readers_in_its_authors_relations_only() {
        let relations = Relations::of(&[rel(2, "Bob"), rel(3, "carol")]);
        assert!(relations.hides_reader(UserId(2)));
        assert!(relations.hides_reader(UserId(3)));
        assert!(!relations.hides_reader(UserId(4)));
        assert!(!Relations::None.hides_reader(UserId(2)));
    }

    #[test]
    fn the_history_drops_the_lines_of_authors_in_the_readers_relations_by_name_in_any_case() {
        let relations = Relations::of(&[rel(2, "Bob")]);
        assert!(relations.hides_author(Some("bob")));
        assert!(relations.hides_author(Some("BOB")));
        assert!(!relations.hides_author(Some("alice")));
        assert!(!relations.hides_author(None), "anonymous lines stay");
    }

    #[test]
    fn relations_the_store_could_not_read_hide_every_account_but_its_own() {
        let unknown = Relations::Unknown(Some(UserId(1)));
        assert!(unknown.hides_reader(UserId(2)));
        assert!(!unknown.hides_reader(UserId(1)));
        assert!(unknown.hides_author(Some("anyone")));
        assert!(!unknown.hides_author(None));
    }

    #[test]
    fn the_union_of_relations_hides_what_either_hides() {
        let both = Relations::of(&[rel(2, "bob")]).union(Relations::of(&[rel(3, "carol")]));
        assert!(both.hides_reader(UserId(2)) && both.hides_reader(UserId(3)));
        assert_eq!(Relations::None.union(Relations::None), Relations::None);
        let unknown = Relations::of(&[rel(2, "bob")]).union(Relations::Unknown(None));
        assert!(unknown.hides_author(Some("zed")));
    }
}

//! A move tree: a start position and, from it, sub-moves with variations at any depth, each
//! node with an optional comment. The analysis board's tree (issue 31): a node's first child
//! is the main line, the others its variations in order.
//!
//! Nodes live in one arena and name each other by index, so that no operation (nor a drop)
//! recurses down a long line. Every sub-move is checked by the rules when it is added: a tree
//! holds only legal lines. The rules judged are the position's own (check ends the turn, the
//! first turn a single sub-move, en passant across sub-moves, the endings of one position);
//! repetitions, which need a line's history, are not judged: a tree is a study, not a game.

use super::position::Position;
use super::submove::SubMove;

/// A node's index in its tree. The root is [`MoveTree::ROOT`].
pub type NodeId = usize;

/// One position of the tree: the sub-move that reached it (none at the root), the position
/// after it, its comment and its continuations (the first is the main line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub submove: Option<SubMove>,
    pub position: Position,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    pub comment: Option<String>,
}

/// Why a tree operation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TreeError {
    #[error("no node {0} in this tree")]
    NoNode(NodeId),
    #[error("{0} is not a legal sub-move here")]
    Illegal(SubMove),
    #[error("the game is over at this position; no sub-move follows")]
    GameOver,
    #[error("the root is the start position: it cannot be deleted or promoted")]
    Root,
}

/// A start position and the lines played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveTree {
    nodes: Vec<Node>,
    /// Per node: deleted (its index is never reused).
    deleted: Vec<bool>,
}

impl MoveTree {
    /// The start position's node.
    pub const ROOT: NodeId = 0;

    /// A tree of the start position alone.
    pub fn new(start: Position) -> MoveTree {
        MoveTree {
            nodes: vec![Node {
                submove: None,
                position: start,
                parent: None,
                children: Vec::new(),
                comment: None,
            }],
            deleted: vec![false],
        }
    }

    pub fn start(&self) -> &Position {
        &self.nodes[Self::ROOT].position
    }

    /// The node `id`, if it is in the tree (a deleted node is not).
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes
            .get(id)
            .filter(|_| !self.deleted.get(id).copied().unwrap_or(true))
    }

    fn checked(&self, id: NodeId) -> Result<&Node, TreeError> {
        self.node(id).ok_or(TreeError::NoNode(id))
    }

    /// Plays `mv` after `parent`: the child that already plays it, or a new one (a new
    /// variation, or the main line if `parent` had none). Refused when `mv` is illegal or the
    /// game is over at `parent`.
    pub fn add(&mut self, parent: NodeId, mv: SubMove) -> Result<NodeId, TreeError> {
        let node = self.checked(parent)?;
        if let Some(&existing) = node
            .children
            .iter()
            .find(|&&child| self.nodes[child].submove == Some(mv))
        {
            return Ok(existing);
        }
        let before = node.position;
        if before.board_outcome().is_some() {
            return Err(TreeError::GameOver);
        }
        if !before.is_legal(mv) {
            return Err(TreeError::Illegal(mv));
        }
        let id = self.nodes.len();
        self.nodes.push(Node {
            submove: Some(mv),
            position: before.play_unchecked(mv),
            parent: Some(parent),
            children: Vec::new(),
            comment: None,
        });
        self.deleted.push(false);
        self.nodes[parent].children.push(id);
        Ok(id)
    }

    /// Makes `id` the first of its siblings: its line becomes the main line from its parent.
    pub fn promote(&mut self, id: NodeId) -> Result<(), TreeError> {
        let parent = self.checked(id)?.parent.ok_or(TreeError::Root)?;
        let children = &mut self.nodes[parent].children;
        if let Some(at) = children.iter().position(|&c| c == id) {
            let child = children.remove(at);
            children.insert(0, child);
        }
        Ok(())
    }

    /// Promotes `id` and every node above it: its line becomes the main line of the tree.
    pub fn make_main_line(&mut self, id: NodeId) -> Result<(), TreeError> {
        self.checked(id)?;
        let mut at = id;
        while at != Self::ROOT {
            self.promote(at)?;
            at = self.nodes[at].parent.unwrap_or(Self::ROOT);
        }
        Ok(())
    }

    /// Deletes `id` and everything after it; the next sibling takes its place.
    pub fn delete(&mut self, id: NodeId) -> Result<(), TreeError> {
        let parent = self.checked(id)?.parent.ok_or(TreeError::Root)?;
        self.nodes[parent].children.retain(|&c| c != id);
        let mut stack = vec![id];
        while let Some(gone) = stack.pop() {
            self.deleted[gone] = true;
            stack.extend(self.nodes[gone].children.iter().copied());
        }
        Ok(())
    }

    /// Sets (or, with an empty text, removes) the comment of `id`. Whitespace runs become one
    /// space, so that a comment reads back from PGN as it was written.
    pub fn set_comment(&mut self, id: NodeId, text: &str) -> Result<(), TreeError> {
        self.checked(id)?;
        let text = normalize_comment(text);
        self.nodes[id].comment = (!text.is_empty()).then_some(text);
        Ok(())
    }

    /// Adds `text` after the comment `id` already has (two comments on one node read as one).
    pub fn append_comment(&mut self, id: NodeId, text: &str) -> Result<(), TreeError> {
        let joined = match &self.checked(id)?.comment {
            Some(old) => format!("{old} {text}"),
            None => text.to_string(),
        };
        self.set_comment(id, &joined)
    }

    /// The main line: the first child of each node from the root, the root excluded.
    pub fn main_line(&self) -> Vec<NodeId> {
        self.line_from(Self::ROOT)
    }

    /// The first child of each node after `id`.
    pub fn line_from(&self, id: NodeId) -> Vec<NodeId> {
        let mut line = Vec::new();
        let mut at = id;
        while let Some(&next) = self.nodes.get(at).and_then(|n| n.children.first()) {
            line.push(next);
            at = next;
        }
        line
    }

    /// The sub-moves from the root to `id`.
    pub fn path(&self, id: NodeId) -> Result<Vec<SubMove>, TreeError> {
        self.checked(id)?;
        let mut moves = Vec::new();
        let mut at = id;
        while let Some(node) = self.nodes.get(at) {
            match (node.submove, node.parent) {
                (Some(mv), Some(parent)) => {
                    moves.push(mv);
                    at = parent;
                }
                _ => break,
            }
        }
        moves.reverse();
        Ok(moves)
    }

    /// Nodes reachable from the root, the root included.
    pub fn len(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![Self::ROOT];
        while let Some(id) = stack.pop() {
            count += 1;
            stack.extend(self.nodes[id].children.iter().copied());
        }
        count
    }

    /// Never: the root is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// How many variations deep `id` is: the edges on its path that are not a first child.
    pub fn variation_depth(&self, id: NodeId) -> usize {
        let mut depth = 0;
        let mut at = id;
        while let Some(parent) = self.nodes.get(at).and_then(|n| n.parent) {
            if self.nodes[parent].children.first() != Some(&at) {
                depth += 1;
            }
            at = parent;
        }
        depth
    }
}

/// A comment as the tree keeps it: trimmed, each run of whitespace one space, no `}` (which
/// would end it in PGN).
pub fn normalize_comment(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace('}', ")")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(text: &str) -> SubMove {
        text.parse().unwrap()
    }

    /// 1. e4 with Black's e5 then Nc6 (main) and Nf6 (variation).
    fn branching() -> (MoveTree, NodeId, NodeId, NodeId) {
        let mut tree = MoveTree::new(Position::initial());
        let e4 = tree.add(MoveTree::ROOT, mv("e2e4")).unwrap();
        let e5 = tree.add(e4, mv("e7e5")).unwrap();
        let nc6 = tree.add(e5, mv("b8c6")).unwrap();
        let nf6 = tree.add(e5, mv("g8f6")).unwrap();
        (tree, e5, nc6, nf6)
    }

    #[test]
    fn the_first_line_played_is_the_main_line_and_later_ones_are_variations() {
        let (tree, e5, nc6, nf6) = branching();
        assert_eq!(tree.main_line().len(), 3);
        assert_eq!(tree.main_line()[2], nc6);
        assert_eq!(tree.node(e5).unwrap().children, vec![nc6, nf6]);
        assert_eq!(tree.variation_depth(nf6), 1);
        assert_eq!(tree.variation_depth(nc6), 0);
    }

    #[test]
    fn playing_a_sub_move_already_in_the_tree_goes_to_its_node() {
        let (mut tree, e5, nc6, _) = branching();
        let len = tree.len();
        assert_eq!(tree.add(e5, mv("b8c6")).unwrap(), nc6);
        assert_eq!(tree.len(), len);
    }

    #[test]
    fn an_illegal_sub_move_is_refused_and_nothing_is_added() {
        let (mut tree, e5, _, _) = branching();
        let len = tree.len();
        assert_eq!(
            tree.add(e5, mv("e1e3")),
            Err(TreeError::Illegal(mv("e1e3")))
        );
        // The first turn is one sub-move: White cannot play a second.
        let e4 = tree.main_line()[0];
        assert!(
            tree.node(e4).unwrap().position.side_to_move() != Position::initial().side_to_move()
        );
        assert_eq!(tree.len(), len);
    }

    #[test]
    fn promoting_a_variation_makes_it_the_main_line_from_its_parent() {
        let (mut tree, e5, nc6, nf6) = branching();
        tree.promote(nf6).unwrap();
        assert_eq!(tree.node(e5).unwrap().children, vec![nf6, nc6]);
        assert_eq!(tree.main_line()[2], nf6);
        assert_eq!(tree.promote(MoveTree::ROOT), Err(TreeError::Root));
    }

    #[test]
    fn making_a_deep_variation_the_main_line_promotes_every_node_above_it() {
        let mut tree = MoveTree::new(Position::initial());
        let e4 = tree.add(MoveTree::ROOT, mv("e2e4")).unwrap();
        let d4 = tree.add(MoveTree::ROOT, mv("d2d4")).unwrap();
        let e5 = tree.add(e4, mv("e7e5")).unwrap();
        let d5 = tree.add(d4, mv("d7d5")).unwrap();
        let nf6 = tree.add(d4, mv("g8f6")).unwrap();
        tree.make_main_line(nf6).unwrap();
        assert_eq!(tree.main_line(), vec![d4, nf6]);
        assert_eq!(tree.node(d4).unwrap().children, vec![nf6, d5]);
        assert_eq!(
            tree.node(e4).unwrap().children,
            vec![e5],
            "the rest is kept"
        );
    }

    #[test]
    fn deleting_a_node_removes_its_line_and_the_next_variation_takes_its_place() {
        let (mut tree, e5, nc6, nf6) = branching();
        let after = tree.add(nc6, mv("g1f3")).unwrap();
        tree.delete(nc6).unwrap();
        assert_eq!(tree.node(e5).unwrap().children, vec![nf6]);
        assert_eq!(tree.node(nc6), None);
        assert_eq!(tree.node(after), None, "its continuation goes with it");
        assert_eq!(tree.set_comment(after, "x"), Err(TreeError::NoNode(after)));
        assert_eq!(tree.delete(MoveTree::ROOT), Err(TreeError::Root));
        assert_eq!(tree.len(), 4);
    }

    #[test]
    fn a_comment_is_kept_trimmed_on_one_line_and_an_empty_one_removes_it() {
        let (mut tree, e5, _, _) = branching();
        tree.set_comment(e5, "  the   open\n game {}  ").unwrap();
        assert_eq!(
            tree.node(e5).unwrap().comment.as_deref(),
            Some("the open game {)")
        );
        tree.append_comment(e5, "again").unwrap();
        assert_eq!(
            tree.node(e5).unwrap().comment.as_deref(),
            Some("the open game {) again")
        );
        tree.set_comment(e5, " ").unwrap();
        assert_eq!(tree.node(e5).unwrap().comment, None);
    }

    #[test]
    fn the_path_of_a_node_is_its_sub_moves_from_the_start() {
        let (tree, _, _, nf6) = branching();
        assert_eq!(
            tree.path(nf6).unwrap(),
            vec![mv("e2e4"), mv("e7e5"), mv("g8f6")]
        );
        assert_eq!(tree.path(MoveTree::ROOT).unwrap(), vec![]);
    }

    #[test]
    fn no_sub_move_follows_a_mate() {
        let mate = Position::from_fen(
            "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            super::super::Rules::Marseillais,
        )
        .unwrap();
        let mut tree = MoveTree::new(mate);
        assert_eq!(
            tree.add(MoveTree::ROOT, mv("e1f2")),
            Err(TreeError::GameOver)
        );
    }
}

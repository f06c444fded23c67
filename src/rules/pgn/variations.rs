//! Comma PGN with variations and comments, read into a [`MoveTree`] and written back: the
//! analysis board's import and export (issue 31).
//!
//! A variation is written per turn, after the turn it replaces, and nests to any depth:
//! `1. e4 e5,Nc6 (1... e5,Nf6 2. d4 (2. Nc3,d4)) 2. Nf3,Bc4 *`. On import, turns that share a
//! first sub-move share its node: the tree branches at the sub-move where they differ (above,
//! `e5` has two children, `Nc6` and `Nf6`). On export a branch at a turn's second sub-move is
//! written as a whole-turn variation, so the text above comes back exactly.
//!
//! The reading is the tolerant one of [`super::read`] (the same lexer, SAN reading and typed
//! errors with the turn and sub-move); move numbers are not checked. A `{comment}` belongs to
//! the sub-move before it (a comment before the first turn, to the start; one at the start of
//! a variation, to the end of that variation's first turn); between the two sub-moves of a
//! turn it is written `e5 {comment} ,Nc6`. Canonical text (what [`write_tree`] writes) reads
//! back to the same tree and writes back to the same text.

use super::super::position::{Phase, Position, Rules};
use super::super::san::{self, SanError};
use super::super::tree::{MoveTree, NodeId, normalize_comment};
use super::lex::{RawGame, Token, split_games_keeping};
use super::write::{escape, wrap};
use super::{GameResult, Location, MoveError, PgnError};

/// Variations nested deeper than this are refused: a text of thousands of `(` would otherwise
/// make the writer (which recurses once per level) deep.
pub const MAX_VARIATION_DEPTH: usize = 64;

/// A game read with its variations.
#[derive(Clone, Debug)]
pub struct ImportedTree {
    pub tree: MoveTree,
    /// Every tag, in the order written.
    pub tags: Vec<(String, String)>,
    /// The movetext's result token (or, if it had none, the `Result` tag).
    pub result: Option<GameResult>,
}

/// The first game of a PGN text with its variations and comments (`None`: no game in it).
/// Any `&str` is safe.
pub fn read_tree(text: &str) -> Option<Result<ImportedTree, PgnError>> {
    split_games_keeping(text).first().map(import)
}

fn import(raw: &RawGame) -> Result<ImportedTree, PgnError> {
    if let Some(error) = &raw.header_error {
        return Err(error.clone());
    }
    let start = match raw.tag("FEN") {
        Some(fen) => Position::from_fen(fen, Rules::Marseillais).map_err(PgnError::Fen)?,
        None => Position::initial(),
    };
    let mut reader = Reader {
        tree: MoveTree::new(start),
        line: Line::from(MoveTree::ROOT),
        outer: Vec::new(),
    };
    for token in &raw.moves {
        reader.token(token)?;
    }
    let result = raw
        .result
        .or_else(|| raw.tag("Result").and_then(|t| t.parse().ok()));
    Ok(ImportedTree {
        tree: reader.tree,
        tags: raw.tags.clone(),
        result,
    })
}

/// Where one line (the main line, or a variation) stands.
struct Line {
    /// The node after the line's last sub-move.
    at: NodeId,
    /// Where the line's last turn started: a variation after it starts there.
    turn_start: Option<NodeId>,
    /// The last turn stopped after its first sub-move (the game goes on): the next word
    /// continues it with a leading comma, or it was left incomplete.
    open: Option<(String, usize)>,
    /// The last word ended with a comma: the next one is its second sub-move.
    trailing_comma: bool,
    /// A comment read before the line's first turn, for that turn's last sub-move.
    leading_comment: Option<String>,
}

impl Line {
    fn from(at: NodeId) -> Line {
        Line {
            at,
            turn_start: None,
            open: None,
            trailing_comma: false,
            leading_comment: None,
        }
    }
}

struct Reader {
    tree: MoveTree,
    line: Line,
    /// The lines a variation interrupted, innermost last.
    outer: Vec<Line>,
}

impl Reader {
    fn position(&self, id: NodeId) -> Position {
        self.tree
            .node(id)
            .map_or_else(|| *self.tree.start(), |node| node.position)
    }

    fn location(&self, id: NodeId, line: usize) -> Location {
        let position = self.position(id);
        Location {
            turn: position.fullmove_number(),
            side: position.side_to_move(),
            submove: if position.phase() == Phase::Second {
                2
            } else {
                1
            },
            line,
        }
    }

    fn error(&self, id: NodeId, line: usize, token: &str, reason: MoveError) -> PgnError {
        PgnError::Move {
            at: self.location(id, line),
            token: token.to_string(),
            reason,
        }
    }

    fn token(&mut self, token: &Token) -> Result<(), PgnError> {
        match token {
            Token::Word { text, line, .. } => self.word(text, *line),
            Token::OpenParen { line } => {
                let Some(start) = self.line.turn_start else {
                    return Err(self.error(self.line.at, *line, "(", MoveError::VariationFirst));
                };
                if self.outer.len() >= MAX_VARIATION_DEPTH {
                    return Err(self.error(self.line.at, *line, "(", MoveError::VariationTooDeep));
                }
                let outer = std::mem::replace(&mut self.line, Line::from(start));
                self.outer.push(outer);
                Ok(())
            }
            Token::CloseParen { line } => match self.outer.pop() {
                Some(outer) => {
                    self.line = outer;
                    Ok(())
                }
                None => Err(self.error(self.line.at, *line, ")", MoveError::UnexpectedCloseParen)),
            },
            Token::Comment { text } => {
                let text = normalize_comment(text);
                if text.is_empty() {
                    return Ok(());
                }
                if self.line.turn_start.is_none() && !self.outer.is_empty() {
                    let pending = self.line.leading_comment.take();
                    self.line.leading_comment = Some(match pending {
                        Some(old) => format!("{old} {text}"),
                        None => text,
                    });
                    return Ok(());
                }
                let _ = self.tree.append_comment(self.line.at, &text);
                Ok(())
            }
            Token::Error(error) | Token::TagError(error) => Err(error.clone()),
            Token::Variation { line } => {
                Err(self.error(self.line.at, *line, "(", MoveError::Variation))
            }
            Token::MoveNumber { .. } | Token::Tag { .. } | Token::Result(..) => Ok(()),
        }
    }

    /// One turn's text (`e5,Nc6`, `e4`, `,Nc6`, `e5,`), played from where the line stands.
    fn word(&mut self, text: &str, line: usize) -> Result<(), PgnError> {
        let here = self.position(self.line.at);
        let mut parts: Vec<&str> = text.split(',').collect();
        let continuing = if parts.len() > 1 && parts[0].is_empty() {
            if here.phase() != Phase::Second {
                return Err(self.error(
                    self.line.at,
                    line,
                    text,
                    MoveError::UnexpectedLeadingComma,
                ));
            }
            parts.remove(0);
            self.line.open.is_some()
        } else if self.line.trailing_comma && here.phase() == Phase::Second {
            true
        } else {
            if let Some((previous, at_line)) = &self.line.open {
                return Err(self.error(
                    self.line.at,
                    *at_line,
                    previous,
                    MoveError::TurnIncomplete,
                ));
            }
            false
        };
        let trailing = parts.len() > 1 && parts.last() == Some(&"");
        if trailing {
            parts.pop();
        }
        if !continuing {
            self.line.turn_start = Some(self.line.at);
        }
        let mut played_from: Option<Phase> = continuing.then_some(Phase::First);
        for (offset, part) in parts.iter().enumerate() {
            let at = self.line.at;
            let before = self.position(at);
            if let Some(outcome) = before.board_outcome() {
                return Err(self.error(at, line, part, MoveError::GameOver(outcome)));
            }
            if (offset > 0 || continuing) && before.phase() != Phase::Second {
                let reason = match played_from {
                    Some(Phase::Single) => MoveError::SingleSubMoveTurn,
                    Some(Phase::First) => MoveError::CheckEndsTurn,
                    _ => MoveError::TooManySubMoves,
                };
                return Err(self.error(at, line, part, reason));
            }
            if part.is_empty() {
                return Err(self.error(at, line, part, MoveError::EmptySubMove));
            }
            let mv = san::parse(&before, part)
                .map_err(|error| self.error(at, line, part, MoveError::San(error)))?;
            self.line.at = self.tree.add(at, mv).map_err(|_| {
                self.error(
                    at,
                    line,
                    part,
                    MoveError::San(SanError::Illegal(part.to_string())),
                )
            })?;
            played_from = Some(before.phase());
        }
        let after = self.position(self.line.at);
        self.line.open = (after.phase() == Phase::Second && after.board_outcome().is_none())
            .then(|| (text.to_string(), line));
        self.line.trailing_comma = trailing;
        if self.line.open.is_none()
            && let Some(comment) = self.line.leading_comment.take()
        {
            let _ = self.tree.append_comment(self.line.at, &comment);
        }
        Ok(())
    }
}

/// The whole PGN of a tree: the tags as given (escaped), a blank line, the movetext with its
/// variations and comments, the result, and a final newline.
pub fn write_tree(tree: &MoveTree, tags: &[(String, String)], result: GameResult) -> String {
    let mut out = String::new();
    for (name, value) in tags {
        out.push_str(&format!("[{name} \"{}\"]\n", escape(value)));
    }
    if !tags.is_empty() {
        out.push('\n');
    }
    out.push_str(&tree_movetext(tree, result));
    out.push('\n');
    out
}

/// The movetext of a tree: turns, `{comments}` and `(variations)`, then the result, wrapped
/// into lines of at most 79 characters.
pub fn tree_movetext(tree: &MoveTree, result: GameResult) -> String {
    let mut tokens = Vec::new();
    let mut need_number = true;
    if let Some(comment) = tree.node(MoveTree::ROOT).and_then(|n| n.comment.as_ref()) {
        tokens.push(format!("{{{comment}}}"));
    }
    write_line(tree, MoveTree::ROOT, &mut tokens, &mut need_number);
    tokens.push(result.as_str().to_string());
    wrap(&tokens)
}

/// The turns from a turn start: each a path of one node (a sub-move that ends the turn, or a
/// first sub-move with nothing after it) or two (a first and a second sub-move), the main
/// turn first.
fn turns_from(tree: &MoveTree, start: NodeId) -> Vec<Vec<NodeId>> {
    let Some(node) = tree.node(start) else {
        return Vec::new();
    };
    let mover = node.position.side_to_move();
    let mut turns = Vec::new();
    for &first in &node.children {
        let Some(s1) = tree.node(first) else { continue };
        let goes_on = s1.position.side_to_move() == mover
            && s1.position.phase() == Phase::Second
            && !s1.children.is_empty();
        if goes_on {
            turns.extend(s1.children.iter().map(|&second| vec![first, second]));
        } else {
            turns.push(vec![first]);
        }
    }
    turns
}

/// Writes the line that continues from `start` (a turn start): its main turns, each followed
/// by its variations. Recurses once per variation level (at most [`MAX_VARIATION_DEPTH`] from
/// an import).
fn write_line(tree: &MoveTree, start: NodeId, tokens: &mut Vec<String>, need_number: &mut bool) {
    let mut at = start;
    loop {
        let turns = turns_from(tree, at);
        let Some(main) = turns.first() else {
            return;
        };
        write_turn(tree, at, main, true, tokens, need_number);
        for (index, variation) in turns.iter().enumerate().skip(1) {
            let shared_first = turns[..index].iter().any(|t| t[0] == variation[0]);
            let opening = tokens.len();
            let mut number = true;
            write_turn(tree, at, variation, !shared_first, tokens, &mut number);
            if let Some(last) = variation.last() {
                write_line(tree, *last, tokens, &mut number);
            }
            if let Some(first) = tokens.get_mut(opening) {
                first.insert(0, '(');
            }
            if let Some(last) = tokens.last_mut() {
                last.push(')');
            }
            *need_number = true;
        }
        match main.last() {
            Some(&last) => at = last,
            None => return,
        }
    }
}

/// One turn's tokens: its number when needed, its sub-moves joined by a comma, and the comments
/// of its nodes (the first sub-move's only if `first_comment`).
fn write_turn(
    tree: &MoveTree,
    start: NodeId,
    path: &[NodeId],
    first_comment: bool,
    tokens: &mut Vec<String>,
    need_number: &mut bool,
) {
    let Some(before) = tree.node(start).map(|n| n.position) else {
        return;
    };
    let number = before.fullmove_number();
    // The number is glued to the turn's text, so that wrapping never leaves it alone.
    let mut text = match before.side_to_move() {
        cozy_chess::Color::White => format!("{number}. "),
        cozy_chess::Color::Black if *need_number => format!("{number}... "),
        cozy_chess::Color::Black => String::new(),
    };
    if before.phase() == Phase::Second {
        text.push(',');
    }
    let mut position = before;
    let mut ends_with_comment = false;
    for (offset, &id) in path.iter().enumerate() {
        let Some(node) = tree.node(id) else { return };
        let Some(mv) = node.submove else { return };
        if offset > 0 {
            text.push(',');
        }
        text.push_str(&san::san(&position, mv));
        position = node.position;
        ends_with_comment = false;
        let comment = node
            .comment
            .as_ref()
            .filter(|_| offset > 0 || first_comment);
        if let Some(comment) = comment {
            tokens.push(std::mem::take(&mut text));
            tokens.push(format!("{{{comment}}}"));
            ends_with_comment = true;
        }
    }
    if !text.is_empty() {
        tokens.push(text);
    }
    *need_number = ends_with_comment || position.side_to_move() == before.side_to_move();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> ImportedTree {
        read_tree(text).expect("a game").expect("readable")
    }

    fn round_trip(text: &str) -> String {
        let imported = read(text);
        write_tree(
            &imported.tree,
            &imported.tags,
            imported.result.unwrap_or(GameResult::Ongoing),
        )
    }

    fn sans(tree: &MoveTree, ids: &[NodeId]) -> Vec<String> {
        ids.iter()
            .map(|&id| {
                let node = tree.node(id).unwrap();
                let parent = tree.node(node.parent.unwrap()).unwrap();
                san::san(&parent.position, node.submove.unwrap())
            })
            .collect()
    }

    #[test]
    fn turns_that_share_a_first_sub_move_share_its_node() {
        let imported = read("1. e4 e5,Nc6 (1... e5,Nf6) (1... d5,d4) 2. Nf3,Bc4 *");
        let tree = &imported.tree;
        assert_eq!(
            sans(tree, &tree.main_line()),
            ["e4", "e5", "Nc6", "Nf3", "Bc4"]
        );
        let e4 = tree.main_line()[0];
        let e5 = tree.main_line()[1];
        assert_eq!(tree.node(e4).unwrap().children.len(), 2, "e5 and d5");
        assert_eq!(sans(tree, &tree.node(e5).unwrap().children), ["Nc6", "Nf6"]);
        assert_eq!(imported.result, Some(GameResult::Ongoing));
    }

    #[test]
    fn nested_variations_and_comments_read_into_the_tree() {
        let imported = read(
            "{A study} 1. e4 {best by test} e5,Nc6 (1... d5 {the Scandinavian} ,dxe4 (1... d5,d4 2. c3,Qb3)) 2. Nf3,Bc4 *",
        );
        let tree = &imported.tree;
        assert_eq!(
            tree.node(MoveTree::ROOT).unwrap().comment.as_deref(),
            Some("A study")
        );
        let e4 = tree.main_line()[0];
        assert_eq!(
            tree.node(e4).unwrap().comment.as_deref(),
            Some("best by test")
        );
        let d5 = tree.node(e4).unwrap().children[1];
        assert_eq!(
            tree.node(d5).unwrap().comment.as_deref(),
            Some("the Scandinavian")
        );
        assert_eq!(sans(tree, &tree.node(d5).unwrap().children), ["dxe4", "d4"]);
        let d4 = tree.node(d5).unwrap().children[1];
        assert_eq!(tree.variation_depth(d4), 2);
        assert_eq!(sans(tree, &tree.line_from(d4)), ["c3", "Qb3"]);
    }

    #[test]
    fn canonical_text_reads_and_writes_back_the_same() {
        for text in [
            "1. e4 e5,Nc6 2. Nf3,Bc4 *\n",
            "1. e4 e5,Nc6 (1... e5,Nf6 2. d4,Nc3 (2. Nc3,d4) 2... exd4,Nxe4) (1... d5,d4)\n2. Nf3,Bc4 *\n",
            "{Start} 1. e4 {a comment} 1... e5 {on S1} ,Nc6 {on S2} 2. Nf3,Bc4 1-0\n",
            "[Event \"Study\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 2\"]\n\n1... ,e5 (1... ,d5) 2. Nf3,Bc4 *\n",
        ] {
            assert_eq!(round_trip(text), text);
        }
    }

    #[test]
    fn export_then_import_then_export_is_stable_for_tolerant_text() {
        let text = "1.e4 e5, Nc6 ( 1...e5,Nf6 ) ( 1...d5,d4 {x}) 2.Nf3,Bc4 *";
        let once = round_trip(text);
        assert_eq!(round_trip(&once), once);
        assert!(
            once.starts_with("1. e4 e5,Nc6 (1... e5,Nf6) (1... d5,d4 {x}) 2. Nf3,Bc4"),
            "{once}"
        );
    }

    #[test]
    fn an_illegal_sub_move_in_a_variation_is_refused_with_its_turn_and_sub_move() {
        let error = read_tree("1. e4 e5,Nc6 (1... e5,Ke3) *")
            .unwrap()
            .unwrap_err();
        let at = error.location().unwrap();
        assert_eq!((at.turn, at.submove), (1, 2), "{error}");
    }

    #[test]
    fn a_variation_before_any_turn_or_a_stray_parenthesis_is_refused() {
        assert!(matches!(
            read_tree("(1. d4) 1. e4 *").unwrap(),
            Err(PgnError::Move {
                reason: MoveError::VariationFirst,
                ..
            })
        ));
        assert!(matches!(
            read_tree("1. e4 ) *").unwrap(),
            Err(PgnError::Move {
                reason: MoveError::UnexpectedCloseParen,
                ..
            })
        ));
    }

    #[test]
    fn variations_nested_too_deep_are_refused() {
        let mut text = String::from("1. e4");
        for _ in 0..=MAX_VARIATION_DEPTH {
            text.push_str(" (1. e4");
        }
        assert!(matches!(
            read_tree(&text).unwrap(),
            Err(PgnError::Move {
                reason: MoveError::VariationTooDeep,
                ..
            })
        ));
    }

    #[test]
    fn an_incomplete_turn_before_the_next_is_refused_like_the_replay() {
        let error = read_tree("1. e4 e5 2. Nf3,Nc3 *").unwrap().unwrap_err();
        assert!(matches!(
            error,
            PgnError::Move {
                reason: MoveError::TurnIncomplete,
                ..
            }
        ));
    }

    #[test]
    fn a_result_inside_a_variation_does_not_end_the_game() {
        let imported = read("1. e4 e5,Nc6 (1... d5,d4 *) 2. Nf3,Bc4 1-0");
        assert_eq!(imported.tree.main_line().len(), 5);
        assert_eq!(imported.result, Some(GameResult::WhiteWins));
    }
}

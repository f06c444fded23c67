//! The move tree on the wire (`POST /api/analysis/pgn` and `/api/analysis/pgn/export`):
//! `TREE = {"start_fen", "tags": [[name, value]...], "result", "root": NODE}`,
//! `NODE = {"uci", "san", "fen", "comment", "children": [NODE...]}` (`children[0]` the main
//! line; `uci` null at the root, whose `fen` is the start). The pure tree and its PGN are the
//! rules' ([`crate::rules::tree`], [`crate::rules::pgn::read_tree`]); this module turns them
//! into JSON and back, every sub-move re-checked from the start (`uci` is authoritative, `san`
//! and `fen` are recomputed).
//!
//! A tree nests one JSON object per sub-move: a long line is thousands of levels deep, past
//! serde_json's default limit of 128 and past what a runtime thread's stack holds. So a tree is
//! read and written on a thread of its own with a large stack ([`on_deep_stack`]), at most
//! [`DEEP_SLOTS`] at once, with serde_json's recursion limit lifted.

use std::sync::Arc;

use axum::http::StatusCode;
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Serialize, Serializer};
use tokio::sync::Semaphore;

use crate::rules::pgn::{GameResult, MAX_VARIATION_DEPTH, read_tree, write_tree};
use crate::rules::tree::{MoveTree, NodeId};
use crate::rules::{Phase, SubMove};
use crate::server::analysis::replay::{ReplayError, ReplayErrorCode};
use crate::server::play::protocol::Side;
use crate::server::web::{ApiError, EdgeCode};

/// Most nodes of one tree (the start included), read from PGN or JSON: a long game with many
/// variations is a few thousand.
pub const MAX_NODES: usize = 20_000;
/// Stack of the thread a tree is read and written on: each level of a JSON tree takes a few
/// hundred bytes of serde's recursion, and a 256 KiB body holds at most ~20,000 levels.
pub const DEEP_STACK_BYTES: usize = 256 * 1024 * 1024;
/// Trees read or written at once (each on its own thread; more wait their turn).
pub const DEEP_SLOTS: usize = 2;

/// The tree as JSON: the start, the tags, the result and the nodes.
pub struct TreeView<'a> {
    pub tree: &'a MoveTree,
    pub tags: &'a [(String, String)],
    pub result: GameResult,
}

impl Serialize for TreeView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(4))?;
        map.serialize_entry("start_fen", &self.tree.start().fen())?;
        map.serialize_entry("tags", &self.tags)?;
        map.serialize_entry("result", self.result.as_str())?;
        map.serialize_entry(
            "root",
            &NodeView {
                tree: self.tree,
                id: MoveTree::ROOT,
            },
        )?;
        map.end()
    }
}

struct NodeView<'a> {
    tree: &'a MoveTree,
    id: NodeId,
}

impl Serialize for NodeView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let Some(node) = self.tree.node(self.id) else {
            return serializer.serialize_none();
        };
        let before = node.parent.and_then(|p| self.tree.node(p));
        let (uci, san) = match (node.submove, before) {
            (Some(mv), Some(parent)) => (Some(mv.to_string()), Some(parent.position.san(mv))),
            _ => (None, None),
        };
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("uci", &uci)?;
        map.serialize_entry("san", &san)?;
        map.serialize_entry("fen", &node.position.fen())?;
        map.serialize_entry("comment", &node.comment)?;
        map.serialize_entry(
            "children",
            &Children {
                tree: self.tree,
                ids: &node.children,
            },
        )?;
        map.end()
    }
}

struct Children<'a> {
    tree: &'a MoveTree,
    ids: &'a [NodeId],
}

impl Serialize for Children<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.ids.len()))?;
        for &id in self.ids {
            seq.serialize_element(&NodeView {
                tree: self.tree,
                id,
            })?;
        }
        seq.end()
    }
}

/// A tree as a client sends it back. `san` and `fen` may be there; they are recomputed.
#[derive(Deserialize)]
pub struct TreeIn {
    start_fen: String,
    #[serde(default)]
    tags: Vec<(String, String)>,
    #[serde(default)]
    result: Option<String>,
    root: NodeIn,
}

#[derive(Deserialize)]
struct NodeIn {
    #[serde(default)]
    uci: Option<String>,
    #[serde(default)]
    comment: Option<String>,
    #[serde(default)]
    children: Vec<NodeIn>,
}

/// Why a tree could not be read or written.
#[derive(Debug)]
pub enum TreeRefusal {
    /// The replay's typed `400` (`bad_move` with the turn and sub-move, `bad_fen`, ...).
    Replay(ReplayError),
    /// Any other refusal (`413 too_large`, `400 bad_request`).
    Api(ApiError),
}

impl From<ReplayError> for TreeRefusal {
    fn from(error: ReplayError) -> TreeRefusal {
        TreeRefusal::Replay(error)
    }
}

impl From<ApiError> for TreeRefusal {
    fn from(error: ApiError) -> TreeRefusal {
        TreeRefusal::Api(error)
    }
}

fn plain(code: ReplayErrorCode, message: impl Into<String>) -> ReplayError {
    ReplayError {
        code,
        message: message.into(),
        turn: None,
        submove: None,
        game: None,
    }
}

fn too_many_nodes(nodes: usize) -> ApiError {
    ApiError::http(
        StatusCode::PAYLOAD_TOO_LARGE,
        EdgeCode::TooLarge,
        format!("the tree has {nodes} positions; the board keeps at most {MAX_NODES}"),
    )
}

/// `POST /api/analysis/pgn`'s body read: the first game of a comma PGN with its variations,
/// as the reply's JSON text.
pub fn import(body: &[u8]) -> Result<String, TreeRefusal> {
    #[derive(Deserialize)]
    struct PgnRequest {
        pgn: String,
    }
    let request: PgnRequest = serde_json::from_slice(body).map_err(|e| {
        plain(
            ReplayErrorCode::BadRequest,
            format!("expected {{\"pgn\": \"...\"}}: {e}"),
        )
    })?;
    if request.pgn.trim().is_empty() {
        return Err(plain(ReplayErrorCode::Empty, "paste a comma PGN").into());
    }
    let imported = match read_tree(&request.pgn) {
        None => return Err(plain(ReplayErrorCode::Empty, "no game was found in the text").into()),
        Some(Err(error)) => return Err(ReplayError::from(error).into()),
        Some(Ok(imported)) => imported,
    };
    let nodes = imported.tree.len();
    if nodes > MAX_NODES {
        return Err(too_many_nodes(nodes).into());
    }
    let result = imported.result.unwrap_or(GameResult::Ongoing);
    #[derive(Serialize)]
    struct Reply<'a> {
        tree: TreeView<'a>,
    }
    serde_json::to_string(&Reply {
        tree: TreeView {
            tree: &imported.tree,
            tags: &imported.tags,
            result,
        },
    })
    .map_err(|e| TreeRefusal::Api(ApiError::bad_request(format!("unwritable tree: {e}"))))
}

/// `POST /api/analysis/pgn/export`'s body read: the tree re-checked and written as canonical
/// comma PGN, as the reply's JSON text.
pub fn export(body: &[u8]) -> Result<String, TreeRefusal> {
    #[derive(Deserialize)]
    struct ExportRequest {
        tree: TreeIn,
    }
    let mut reader = serde_json::Deserializer::from_slice(body);
    reader.disable_recursion_limit();
    let request = ExportRequest::deserialize(&mut reader)
        .and_then(|r| reader.end().map(|()| r))
        .map_err(|e| {
            plain(
                ReplayErrorCode::BadRequest,
                format!("expected {{\"tree\": {{\"start_fen\", \"root\", ...}}}}: {e}"),
            )
        })?;
    let (tree, tags, result) = rebuild(request.tree)?;
    #[derive(Serialize)]
    struct Reply {
        pgn: String,
    }
    serde_json::to_string(&Reply {
        pgn: write_tree(&tree, &tags, result),
    })
    .map_err(|e| TreeRefusal::Api(ApiError::bad_request(format!("unwritable PGN: {e}"))))
}

/// A tree read from a client, with the tags and result to write.
type Rebuilt = (MoveTree, Vec<(String, String)>, GameResult);

/// The tree a client sent, every sub-move played again from its start (iteratively: its depth
/// is the client's).
fn rebuild(input: TreeIn) -> Result<Rebuilt, TreeRefusal> {
    let start = crate::server::analysis::position::read_fen(&input.start_fen)
        .map_err(|e| plain(ReplayErrorCode::BadFen, e.0))?;
    let result = match input.result.as_deref() {
        None => GameResult::Ongoing,
        Some(text) => text
            .parse()
            .map_err(|e: crate::rules::pgn::UnknownResult| {
                plain(ReplayErrorCode::BadRequest, e.to_string())
            })?,
    };
    let mut tree = MoveTree::new(start);
    if let Some(comment) = &input.root.comment {
        let _ = tree.set_comment(MoveTree::ROOT, comment);
    }
    let mut nodes = 1;
    // (node, its id in the tree, how many variations deep)
    let mut stack: Vec<(&NodeIn, NodeId, usize)> = vec![(&input.root, MoveTree::ROOT, 0)];
    while let Some((node, id, depth)) = stack.pop() {
        for (index, child) in node.children.iter().enumerate() {
            let depth = depth + usize::from(index > 0);
            if depth > MAX_VARIATION_DEPTH {
                return Err(ApiError::bad_request(format!(
                    "variations are nested more than {MAX_VARIATION_DEPTH} deep"
                ))
                .into());
            }
            nodes += 1;
            if nodes > MAX_NODES {
                return Err(too_many_nodes(nodes).into());
            }
            let child_id = add(&mut tree, id, child.uci.as_deref())?;
            if let Some(comment) = &child.comment {
                let _ = tree.set_comment(child_id, comment);
            }
            stack.push((child, child_id, depth));
        }
    }
    let mut tags = input.tags;
    let start_fen = tree.start().fen();
    let standard = start_fen == crate::rules::fen::INITIAL_FEN;
    match tags.iter_mut().find(|(name, _)| name == "FEN") {
        Some((_, value)) => *value = start_fen,
        None if !standard => {
            tags.push(("SetUp".into(), "1".into()));
            tags.push(("FEN".into(), start_fen));
        }
        None => {}
    }
    if let Some((_, value)) = tags.iter_mut().find(|(name, _)| name == "Result") {
        *value = result.as_str().to_string();
    }
    Ok((tree, tags, result))
}

/// One node's sub-move played after `parent`, or the replay's `bad_move` with where it stands.
fn add(tree: &mut MoveTree, parent: NodeId, uci: Option<&str>) -> Result<NodeId, ReplayError> {
    let Some(before) = tree.node(parent).map(|n| n.position) else {
        return Err(plain(ReplayErrorCode::BadMove, "a node of no tree"));
    };
    let side = match Side::from(before.side_to_move()) {
        Side::White => "White",
        Side::Black => "Black",
    };
    let turn = before.fullmove_number();
    let submove: u8 = if before.phase() == Phase::Second {
        2
    } else {
        1
    };
    let bad = |message: String| ReplayError {
        code: ReplayErrorCode::BadMove,
        message: format!("Turn {turn} ({side}), sub-move {submove}: {message}"),
        turn: Some(turn),
        submove: Some(submove),
        game: None,
    };
    let text = uci.ok_or_else(|| bad("a node after the start has no \"uci\"".into()))?;
    let mv: SubMove = text
        .parse()
        .map_err(|e| bad(format!("'{text}' is not a UCI sub-move: {e}")))?;
    tree.add(parent, mv)
        .map_err(|e| bad(format!("'{text}': {e}")))
}

/// Runs `work` on a thread of its own with a [`DEEP_STACK_BYTES`] stack, once one of the
/// `slots` is free: what reading and writing a tree needs.
pub async fn on_deep_stack<T: Send + 'static>(
    slots: &Arc<Semaphore>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let failed = || {
        ApiError::http(
            StatusCode::INTERNAL_SERVER_ERROR,
            EdgeCode::Internal,
            "the tree could not be read",
        )
    };
    let permit = Arc::clone(slots)
        .acquire_owned()
        .await
        .map_err(|_| failed())?;
    let (done, answer) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("move-tree".into())
        .stack_size(DEEP_STACK_BYTES)
        .spawn(move || {
            let _ = done.send(work());
            drop(permit);
        })
        .map_err(|error| {
            tracing::error!(%error, "no thread for a move tree");
            failed()
        })?;
    answer.await.map_err(|_| failed())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// JSON of any depth.
    fn deep(text: &str) -> Value {
        let mut reader = serde_json::Deserializer::from_str(text);
        reader.disable_recursion_limit();
        Value::deserialize(&mut reader).unwrap()
    }

    fn imported(pgn: &str) -> Value {
        let body = json!({ "pgn": pgn }).to_string();
        deep(&import(body.as_bytes()).unwrap())
    }

    fn exported(tree: &Value) -> Result<String, TreeRefusal> {
        let body = json!({ "tree": tree }).to_string();
        export(body.as_bytes()).map(|text| {
            let reply = deep(&text);
            reply["pgn"].as_str().unwrap().to_string()
        })
    }

    #[test]
    fn a_tree_comes_back_with_uci_san_fen_comment_and_children_main_line_first() {
        let reply = imported("1. e4 e5,Nc6 (1... e5,Nf6 {Petrov}) *");
        let tree = &reply["tree"];
        assert_eq!(tree["result"], "*");
        assert_eq!(tree["root"]["uci"], Value::Null);
        assert_eq!(tree["root"]["fen"], tree["start_fen"]);
        let e4 = &tree["root"]["children"][0];
        assert_eq!(
            (e4["uci"].clone(), e4["san"].clone()),
            (json!("e2e4"), json!("e4"))
        );
        let e5 = &e4["children"][0];
        assert_eq!(e5["children"][0]["san"], "Nc6");
        assert_eq!(e5["children"][1]["san"], "Nf6");
        assert_eq!(e5["children"][1]["comment"], "Petrov");
    }

    #[test]
    fn export_writes_the_imported_text_back() {
        let text = "1. e4 e5,Nc6 (1... e5,Nf6 {Petrov}) 2. Nf3,Bc4 *\n";
        let reply = imported(text);
        assert_eq!(exported(&reply["tree"]).unwrap(), text);
    }

    #[test]
    fn export_recomputes_san_and_refuses_an_illegal_sub_move_with_its_turn() {
        let mut reply = imported("1. e4 e5,Nc6 *");
        reply["tree"]["root"]["children"][0]["san"] = json!("garbage");
        assert!(exported(&reply["tree"]).unwrap().starts_with("1. e4 "));
        reply["tree"]["root"]["children"][0]["children"][0]["uci"] = json!("e1e3");
        match exported(&reply["tree"]) {
            Err(TreeRefusal::Replay(error)) => {
                assert_eq!(error.code, ReplayErrorCode::BadMove);
                assert_eq!((error.turn, error.submove), (Some(1), Some(1)));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_long_line_nests_deeper_than_serde_jsons_default_limit() {
        // 141 sub-moves (282 levels of JSON): knights out and back, short of the 75-move rule.
        let mut pgn = String::from("1. Nf3 ");
        let mut turn = 1;
        let mut white_out = true;
        let mut black_out = false;
        for _ in 0..35 {
            let (b1, b2) = if black_out {
                ("Ng8", "Nb8")
            } else {
                ("Nf6", "Nc6")
            };
            black_out = !black_out;
            turn += 1;
            let (w1, w2) = if white_out {
                ("Ng1", "Nc3")
            } else {
                ("Nf3", "Nb1")
            };
            white_out = !white_out;
            pgn.push_str(&format!("{b1},{b2} {turn}. {w1},{w2} "));
        }
        pgn.push('*');
        // On a large stack, as the routes run it ([`on_deep_stack`]).
        let deep = std::thread::Builder::new()
            .stack_size(DEEP_STACK_BYTES)
            .spawn(move || {
                let reply = imported(&pgn);
                let text = exported(&reply["tree"]).unwrap();
                assert_eq!(imported(&text), reply);
            })
            .unwrap();
        deep.join().unwrap();
    }
}

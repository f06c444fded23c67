//! The shape of the house (docs/architecture.md): the import graph of `src/`, read from the
//! source, has no cycle, and its layers point down.
//!
//! A test of our own rather than `cargo modules dependencies --acyclic`: it needs nothing
//! installed (CI's install stage stays at zero), reads the 150 files in well under a second, and
//! its rules are ours (edges follow re-exports to the defining file; a folder's `mod` and
//! `pub use` lines are its shape, not a use).

mod graph;
mod lex;

use std::path::Path;

use graph::{Graph, Module};

fn house() -> Graph {
    graph::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

fn report(graph: &Graph, groups: &[Vec<Module>]) -> String {
    let mut out = String::new();
    for group in groups {
        let names: Vec<String> = group.iter().map(ToString::to_string).collect();
        out.push_str(&format!(
            "  cycle of {}: {}\n",
            group.len(),
            names.join(", ")
        ));
        for edge in graph.edges_within(group) {
            out.push_str(&edge);
            out.push('\n');
        }
    }
    out
}

#[test]
fn no_module_imports_another_in_a_cycle() {
    let graph = house();
    let cycles = graph.cycles();
    assert!(
        cycles.is_empty(),
        "{} import cycles in src/ (cut one edge of each):\n{}",
        cycles.len(),
        report(&graph, &cycles)
    );
}

/// Whether library module `name` is `folder` or inside it (`server::web` holds
/// `server::web::serve`, not `server::webhook`).
fn inside(name: &str, folder: &str) -> bool {
    name == folder
        || name
            .strip_prefix(folder)
            .is_some_and(|rest| rest.starts_with("::"))
}

/// Every edge from a library module inside one of `from` to a library module inside none of
/// `allowed`, as a line each: what to cut.
fn outside(graph: &Graph, from: &[&str], allowed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for (m, edges) in &graph.edges {
        let name = m.path.join("::");
        if m.krate != "lib" || !from.iter().any(|f| inside(&name, f)) {
            continue;
        }
        for (target, shown) in edges {
            let to = target.path.join("::");
            if target.krate == "lib" && !allowed.iter().any(|a| inside(&to, a)) {
                out.push(format!("  {m} -> {target}   ({shown})"));
            }
        }
    }
    out
}

/// Fails, naming every offending edge, when a module inside `from` imports one outside
/// `allowed`.
fn assert_imports_only(from: &[&str], allowed: &[&str]) {
    let up = outside(&house(), from, allowed);
    assert!(
        up.is_empty(),
        "{from:?} reaches outside {allowed:?}:\n{}",
        up.join("\n")
    );
}

#[test]
fn the_rules_and_the_engine_import_nothing_of_the_server() {
    assert_imports_only(&["rules", "engine"], &["rules", "engine"]);
}

#[test]
fn the_web_edge_knows_no_feature() {
    assert_imports_only(
        &["server::web"],
        &["server::web", "server::config", "server::metrics"],
    );
}

#[test]
fn the_game_core_imports_only_the_rules_the_engine_and_the_domain_values() {
    let core = [
        "rules",
        "engine",
        "server::game",
        "server::domain",
        "server::ids",
    ];
    assert_imports_only(&["server::game"], &core);
}

#[test]
fn the_store_imports_no_feature() {
    let below = [
        "rules",
        "engine",
        "server::game",
        "server::domain",
        "server::config",
    ];
    assert_imports_only(
        &["server::store"],
        &[&below[..], &["server::store"]].concat(),
    );
}

#[test]
fn the_domain_values_import_nothing_of_the_server() {
    assert_imports_only(&["server::domain"], &["rules", "server::domain"]);
}

mod checker {
    //! The checker itself can fail: small houses with a cycle in them.

    use super::graph;

    fn write(dir: &std::path::Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = dir.join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
    }

    #[test]
    fn two_files_that_use_each_other_are_a_cycle() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            &[
                ("lib.rs", "pub mod a;\npub mod b;\n"),
                ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
                (
                    "b.rs",
                    "pub struct B;\nfn f() { let _ = crate::a::A(B); }\n",
                ),
            ],
        );
        let cycles = graph::read(dir.path()).cycles();
        assert_eq!(cycles.len(), 1);
        assert_eq!(cycles[0].len(), 2);
    }

    #[test]
    fn a_re_export_is_followed_to_the_file_that_defines_the_item() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            &[
                ("lib.rs", "pub mod store;\npub mod game;\n"),
                ("store/mod.rs", "mod sqlite;\npub use sqlite::Sqlite;\n"),
                (
                    "store/sqlite.rs",
                    "use crate::game::Move;\npub struct Sqlite(Move);\n",
                ),
                (
                    "game.rs",
                    "pub struct Move;\nfn f(_: crate::store::Sqlite) {}\n",
                ),
            ],
        );
        let g = graph::read(dir.path());
        let cycles = g.cycles();
        assert_eq!(cycles.len(), 1, "game <-> store::sqlite");
        let names: Vec<String> = cycles[0].iter().map(ToString::to_string).collect();
        assert_eq!(names, ["game", "store::sqlite"]);
    }

    #[test]
    fn a_child_that_uses_its_parents_item_while_the_parent_calls_it_is_a_cycle() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            &[
                ("lib.rs", "pub mod room;\n"),
                (
                    "room/mod.rs",
                    "mod path;\npub struct Deps;\nfn f() { path::run(Deps) }\n",
                ),
                ("room/path.rs", "use super::Deps;\npub fn run(_: Deps) {}\n"),
            ],
        );
        assert_eq!(graph::read(dir.path()).cycles().len(), 1);
    }

    #[test]
    fn a_layer_that_imports_a_module_outside_its_allowed_ones_is_named() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            &[
                ("lib.rs", "pub mod web;\npub mod webhook;\npub mod play;\n"),
                ("web.rs", "pub struct Edge;\n"),
                ("webhook.rs", "pub struct Hook;\n"),
                (
                    "play.rs",
                    "use crate::web::Edge;\nuse crate::webhook::Hook;\n",
                ),
            ],
        );
        let g = graph::read(dir.path());
        let up = super::outside(&g, &["play"], &["play", "web"]);
        assert_eq!(up.len(), 1, "{up:?}");
        assert!(up[0].contains("-> webhook"), "{up:?}");
    }

    #[test]
    fn paths_in_comments_and_strings_draw_no_edge() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(
            dir.path(),
            &[
                ("lib.rs", "pub mod a;\npub mod b;\n"),
                ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
                (
                    "b.rs",
                    "pub struct B;\n/// [`crate::a::A`]\nconst S: &str = \"crate::a::A\";\n",
                ),
            ],
        );
        assert!(graph::read(dir.path()).cycles().is_empty());
    }
}

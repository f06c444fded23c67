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

/// Modules whose name starts with one of `prefixes` (in the library).
fn under<'a>(graph: &'a Graph, prefixes: &[&str]) -> Vec<&'a Module> {
    graph
        .files
        .keys()
        .filter(|m| m.krate == "lib" && prefixes.iter().any(|p| m.path.join("::").starts_with(p)))
        .collect()
}

/// Every edge from a module under `from` to one under `to`.
fn crossings(graph: &Graph, from: &[&str], to: &[&str]) -> Vec<String> {
    let targets = under(graph, to);
    let mut out = Vec::new();
    for m in under(graph, from) {
        for (target, shown) in graph.edges.get(m).into_iter().flatten() {
            if targets.contains(&target) {
                out.push(format!("  {m} -> {target}   ({shown})"));
            }
        }
    }
    out
}

#[test]
fn the_rules_and_the_engine_import_nothing_of_the_server() {
    let graph = house();
    let up = crossings(&graph, &["rules", "engine"], &["server"]);
    assert!(up.is_empty(), "arrows up:\n{}", up.join("\n"));
}

/// Edges from modules under `from` to modules outside `allowed` (the library's own, by prefix).
fn outside(graph: &Graph, from: &[&str], allowed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for m in under(graph, from) {
        for (target, shown) in graph.edges.get(m).into_iter().flatten() {
            let name = target.path.join("::");
            if target.krate == "lib" && !allowed.iter().any(|a| name.starts_with(a)) {
                out.push(format!("  {m} -> {target}   ({shown})"));
            }
        }
    }
    out
}

#[test]
fn the_web_edge_knows_no_feature() {
    let graph = house();
    let up = outside(
        &graph,
        &["server::web"],
        &["server::web", "server::config", "server::metrics"],
    );
    assert!(up.is_empty(), "the edge reaches into:\n{}", up.join("\n"));
}

#[test]
fn the_game_core_imports_only_the_rules_the_engine_and_the_domain_values() {
    let graph = house();
    let up = outside(
        &graph,
        &["server::game"],
        &[
            "rules",
            "engine",
            "server::game",
            "server::domain",
            "server::ids",
        ],
    );
    assert!(up.is_empty(), "the core reaches into:\n{}", up.join("\n"));
}

#[test]
fn the_store_imports_no_feature() {
    let graph = house();
    let up = outside(
        &graph,
        &["server::store"],
        &[
            "rules",
            "engine",
            "server::store",
            "server::game",
            "server::domain",
            "server::config",
        ],
    );
    assert!(up.is_empty(), "the store reaches into:\n{}", up.join("\n"));
}

#[test]
fn the_domain_values_import_nothing_of_the_server() {
    let graph = house();
    let up = outside(&graph, &["server::domain"], &["rules", "server::domain"]);
    assert!(up.is_empty(), "the domain reaches into:\n{}", up.join("\n"));
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

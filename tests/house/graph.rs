//! The import graph of `src/`: one node per file module, an edge from a module to every module
//! whose item it names (in a `use`, or in a path in its code).
//!
//! A path is followed through re-exports to the module that defines the item, so that
//! `store::SqliteStore` counts as a use of `store::sqlite`, not of `store/mod.rs`. A folder's
//! `mod` and `pub use` lines are its shape, not a use: they draw no edge. Items are read at the
//! level of their file (or of an inline module in it, which belongs to the file's node).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::lex::{Token, UsePath, tokens, use_tree};

/// A module: its crate (`lib`, or the binary's name) and its path in that crate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Module {
    pub krate: String,
    pub path: Vec<String>,
}

impl std::fmt::Display for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.krate != "lib" {
            write!(f, "bin {}", self.krate)?;
            if !self.path.is_empty() {
                write!(f, "::")?;
            }
        } else if self.path.is_empty() {
            write!(f, "crate")?;
        }
        write!(f, "{}", self.path.join("::"))
    }
}

/// What one file says.
#[derive(Default)]
struct File {
    /// Names defined at the file's level (and at the level of its inline modules).
    items: HashSet<String>,
    inline_mods: HashSet<String>,
    /// Every `use` in the file: whether it is a re-export at the file's level, and the module
    /// (inline modules included) it is written in.
    uses: Vec<Use>,
    /// Every path in the code: its segments and the module it is written in.
    code_paths: Vec<(Vec<String>, Vec<String>)>,
}

struct Use {
    reexport: bool,
    context: Vec<String>,
    path: UsePath,
}

/// The graph: every module and the modules it uses, each edge with one path that draws it.
pub struct Graph {
    pub edges: BTreeMap<Module, BTreeMap<Module, String>>,
    pub files: BTreeMap<Module, PathBuf>,
}

/// Reads every `.rs` file under `src`.
pub fn read(src: &Path) -> Graph {
    let mut modules: BTreeMap<Module, PathBuf> = BTreeMap::new();
    collect(src, "lib", &[], &mut modules, true);
    for entry in sorted_entries(&src.join("bin")) {
        if entry.extension().is_some_and(|e| e == "rs") {
            let name = stem(&entry);
            modules.insert(
                Module {
                    krate: name.clone(),
                    path: vec![],
                },
                entry.clone(),
            );
            let dir = src.join("bin").join(&name);
            if dir.is_dir() {
                collect(&dir, &name, &[], &mut modules, false);
            }
        }
    }
    let files: HashMap<Module, File> = modules
        .iter()
        .map(|(module, path)| {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            (module.clone(), parse(&text, &module.path))
        })
        .collect();
    let house = House {
        modules: &modules,
        files: &files,
    };
    let mut edges: BTreeMap<Module, BTreeMap<Module, String>> = BTreeMap::new();
    for (module, file) in &files {
        let out = edges.entry(module.clone()).or_default();
        let mut add = |target: Option<Module>, shown: String| {
            if let Some(target) = target
                && target != *module
            {
                out.entry(target).or_insert(shown);
            }
        };
        for u in file.uses.iter().filter(|u| !u.reexport) {
            let Some(abs) = house.absolute(module, &u.context, &u.path.segments, 0) else {
                continue;
            };
            let shown = u.path.segments.join("::");
            match house.resolve(&module.krate, &abs, 0) {
                Some(Target::Item(m)) => add(Some(m), shown),
                Some(Target::Module(m)) if u.path.alias.is_none() => add(Some(m), shown),
                _ => {}
            }
        }
        for (segments, context) in &file.code_paths {
            let Some(abs) = house.absolute(module, context, segments, 0) else {
                continue;
            };
            if let Some(Target::Item(m)) = house.resolve(&module.krate, &abs, 0) {
                add(Some(m), segments.join("::"));
            }
        }
    }
    Graph {
        edges,
        files: modules,
    }
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    entries
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string()
}

/// The modules of one folder: `x.rs` and `x/mod.rs` are `x`; `lib.rs` is the crate's root.
fn collect(
    dir: &Path,
    krate: &str,
    prefix: &[String],
    out: &mut BTreeMap<Module, PathBuf>,
    is_lib_root: bool,
) {
    for entry in sorted_entries(dir) {
        let name = stem(&entry);
        if entry.is_dir() {
            if is_lib_root && name == "bin" {
                continue;
            }
            let mut path = prefix.to_vec();
            path.push(name.clone());
            collect(&entry, krate, &path, out, false);
        } else if entry.extension().is_some_and(|e| e == "rs") {
            let path = match name.as_str() {
                "mod" => prefix.to_vec(),
                "lib" if is_lib_root => vec![],
                "main" if is_lib_root => continue,
                _ => {
                    let mut path = prefix.to_vec();
                    path.push(name);
                    path
                }
            };
            out.insert(
                Module {
                    krate: krate.to_string(),
                    path,
                },
                entry,
            );
        }
    }
}

/// Reads the items, uses and code paths of one file whose module is `own`.
fn parse(text: &str, own: &[String]) -> File {
    let tokens = tokens(text);
    let mut file = File::default();
    let mut depth = 0usize;
    // inline modules open at this point: (name, the depth inside their braces)
    let mut inline: Vec<(String, usize)> = Vec::new();
    let context = |inline: &[(String, usize)]| -> Vec<String> {
        let mut c = own.to_vec();
        c.extend(inline.iter().map(|(n, _)| n.clone()));
        c
    };
    let mut i = 0;
    while i < tokens.len() {
        let module_level = depth == inline.last().map_or(0, |(_, d)| *d);
        match &tokens[i] {
            Token::Open => depth += 1,
            Token::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
            }
            Token::Ident(word) if word == "use" => {
                let reexport = module_level && inline.is_empty() && preceded_by_pub(&tokens, i);
                let (paths, next) = use_tree(&tokens, i + 1);
                let ctx = context(&inline);
                file.uses.extend(paths.into_iter().map(|path| Use {
                    reexport,
                    context: ctx.clone(),
                    path,
                }));
                i = next;
                continue;
            }
            Token::Ident(word) if word == "mod" && module_level => {
                if let Some(Token::Ident(name)) = tokens.get(i + 1) {
                    file.items.insert(name.clone());
                    if tokens.get(i + 2) == Some(&Token::Open) {
                        file.inline_mods.insert(name.clone());
                        inline.push((name.clone(), depth + 1));
                        depth += 1;
                        i += 3;
                        continue;
                    }
                }
            }
            Token::Ident(word) if module_level && defines_item(word) => {
                let mut j = i + 1;
                while let Some(Token::Ident(w)) = tokens.get(j) {
                    if matches!(w.as_str(), "fn" | "unsafe" | "async" | "extern") {
                        j += 1;
                    } else {
                        break;
                    }
                }
                if let Some(Token::Ident(name)) = tokens.get(j) {
                    file.items.insert(name.clone());
                }
            }
            Token::Ident(word)
                if word == "macro_rules" && tokens.get(i + 1) == Some(&Token::Punct('!')) =>
            {
                if let Some(Token::Ident(name)) = tokens.get(i + 2) {
                    file.items.insert(name.clone());
                }
            }
            Token::Ident(first) if i == 0 || tokens[i - 1] != Token::PathSep => {
                let mut segments = vec![first.clone()];
                let mut j = i + 1;
                while tokens.get(j) == Some(&Token::PathSep) {
                    match tokens.get(j + 1) {
                        Some(Token::Ident(next)) => {
                            segments.push(next.clone());
                            j += 2;
                        }
                        _ => break,
                    }
                }
                file.code_paths.push((segments, context(&inline)));
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    file
}

fn defines_item(word: &str) -> bool {
    matches!(
        word,
        "struct" | "enum" | "fn" | "trait" | "type" | "const" | "static" | "union"
    )
}

/// `pub use`, `pub(crate) use`, `pub(super) use`, `pub(in path) use`.
fn preceded_by_pub(tokens: &[Token], use_at: usize) -> bool {
    let before = |k: usize| use_at.checked_sub(k).and_then(|j| tokens.get(j));
    if before(1) == Some(&Token::Ident("pub".into())) {
        return true;
    }
    if before(1) == Some(&Token::Punct(')')) {
        for k in 2..8 {
            if before(k) == Some(&Token::Punct('(')) {
                return before(k + 1) == Some(&Token::Ident("pub".into()));
            }
        }
    }
    false
}

enum Target {
    Module(Module),
    /// An item, and the module whose file defines it.
    Item(Module),
}

struct House<'a> {
    modules: &'a BTreeMap<Module, PathBuf>,
    files: &'a HashMap<Module, File>,
}

const MAX_HOPS: usize = 8;

impl House<'_> {
    /// The file module that holds `path` (inline modules belong to their file).
    fn file_of(&self, krate: &str, path: &[String]) -> Option<Module> {
        (0..=path.len()).rev().find_map(|n| {
            let m = Module {
                krate: krate.to_string(),
                path: path[..n].to_vec(),
            };
            self.modules.contains_key(&m).then_some(m)
        })
    }

    fn is_child_module(&self, krate: &str, parent: &[String], name: &str) -> bool {
        let mut path = parent.to_vec();
        path.push(name.to_string());
        self.modules.contains_key(&Module {
            krate: krate.to_string(),
            path,
        })
    }

    /// `segments`, written in module `context` of the file `file`, as a path from the crate's
    /// root; `None` for a path into another crate, a local name or a generic.
    fn absolute(
        &self,
        file: &Module,
        context: &[String],
        segments: &[String],
        hops: usize,
    ) -> Option<Vec<String>> {
        let first = segments.first()?;
        let krate = &file.krate;
        match first.as_str() {
            "crate" => Some(segments[1..].to_vec()),
            "self" => Some([context, &segments[1..]].concat()),
            "super" => {
                let mut base = context.to_vec();
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop()?;
                    rest = &rest[1..];
                }
                Some([&base[..], rest].concat())
            }
            "Self" => None,
            name => {
                if self.is_child_module(krate, context, name) {
                    return Some([context, segments].concat());
                }
                let defining = self.file_of(krate, context)?;
                let f = self.files.get(&defining)?;
                if f.inline_mods.contains(name) || (segments.len() > 1 && f.items.contains(name)) {
                    return Some([context, segments].concat());
                }
                if hops >= MAX_HOPS {
                    return None;
                }
                let u = f
                    .uses
                    .iter()
                    .find(|u| u.path.alias.as_deref() == Some(name) && u.context == context)?;
                let base = self.absolute(file, &u.context, &u.path.segments, hops + 1)?;
                Some([&base[..], &segments[1..]].concat())
            }
        }
    }

    /// What the absolute `path` names, following re-exports to the defining module.
    fn resolve(&self, krate: &str, path: &[String], hops: usize) -> Option<Target> {
        let mut node: Vec<String> = Vec::new();
        for (i, seg) in path.iter().enumerate() {
            if self.is_child_module(krate, &node, seg) {
                node.push(seg.clone());
                continue;
            }
            let module = self.file_of(krate, &node)?;
            let file = self.files.get(&module)?;
            if file.inline_mods.contains(seg) {
                node.push(seg.clone());
                continue;
            }
            if file.items.contains(seg) {
                return Some(Target::Item(module));
            }
            if hops < MAX_HOPS {
                let named = file
                    .uses
                    .iter()
                    .find(|u| u.path.alias.as_deref() == Some(seg.as_str()) && u.context == node);
                if let Some(u) = named {
                    let base = self.absolute(&module, &u.context, &u.path.segments, 0)?;
                    let full = [&base[..], &path[i + 1..]].concat();
                    return self.resolve(krate, &full, hops + 1);
                }
                for glob in file
                    .uses
                    .iter()
                    .filter(|u| u.path.alias.is_none() && u.reexport)
                {
                    let Some(base) = self.absolute(&module, &glob.context, &glob.path.segments, 0)
                    else {
                        continue;
                    };
                    let full = [&base[..], &path[i..]].concat();
                    if let Some(Target::Item(m)) = self.resolve(krate, &full, hops + 1)
                        && m != module
                    {
                        return Some(Target::Item(m));
                    }
                }
            }
            // A variant, a method, a macro: the module's own.
            return Some(Target::Item(module));
        }
        self.file_of(krate, &node).map(Target::Module)
    }
}

impl Graph {
    /// The groups of modules that import each other in a circle (strongly connected components
    /// of more than one module), each sorted, smallest group first.
    pub fn cycles(&self) -> Vec<Vec<Module>> {
        let nodes: Vec<&Module> = self.files.keys().collect();
        let index: HashMap<&Module, usize> =
            nodes.iter().enumerate().map(|(i, m)| (*m, i)).collect();
        let adjacency: Vec<Vec<usize>> = nodes
            .iter()
            .map(|m| {
                self.edges
                    .get(*m)
                    .map(|out| out.keys().filter_map(|t| index.get(t).copied()).collect())
                    .unwrap_or_default()
            })
            .collect();
        let mut groups: Vec<Vec<Module>> = tarjan(&adjacency)
            .into_iter()
            .filter(|g| g.len() > 1)
            .map(|g| {
                let mut g: Vec<Module> = g.into_iter().map(|i| nodes[i].clone()).collect();
                g.sort();
                g
            })
            .collect();
        groups.sort_by_key(|g| (g.len(), g.clone()));
        groups
    }

    /// The edges inside one group, each with a path that draws it: what to cut.
    pub fn edges_within(&self, group: &[Module]) -> Vec<String> {
        let members: BTreeSet<&Module> = group.iter().collect();
        let mut out = Vec::new();
        for from in group {
            for (to, shown) in self.edges.get(from).into_iter().flatten() {
                if members.contains(to) {
                    out.push(format!("    {from} -> {to}   ({shown})"));
                }
            }
        }
        out
    }
}

/// Tarjan's strongly connected components, iterative (no recursion limit on a deep graph).
fn tarjan(adjacency: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = adjacency.len();
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some((v, edge)) = work.pop() {
            if edge == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = adjacency[v].get(edge) {
                work.push((v, edge + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if low[v] == index[v] {
                let mut group = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(group);
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
        }
    }
    out
}

//! The layers of the crate: the top-level modules of `src/` form a graph without cycles.
//!
//! Reads every source file, collects the `crate::` paths each top-level module names
//! (through `use` lists and in code; comments and test-only modules left out, and names the
//! crate root re-exports resolved to the module they come from), and fails naming the
//! modules and files of any cycle. The layering it finds is drawn in
//! `docs/architecture.md`; this test keeps it true. It also keeps rule and compiler code
//! free of catch-all match arms, so that adding a primitive is a list of compile errors.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A dependency graph: for each module, the modules it names, with the files that name them.
type Graph = BTreeMap<String, BTreeMap<String, BTreeSet<String>>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The code of a file without comments (doc comments included) and string contents.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                let mut prev = ' ';
                for c in chars.by_ref() {
                    if prev == '*' && c == '/' {
                        break;
                    }
                    prev = c;
                }
            }
            '"' => {
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '"' && !escaped {
                        break;
                    }
                    escaped = c == '\\' && !escaped;
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// `code` without the bodies of `#[cfg(test)] mod name { ... }` blocks, and the names of
/// the test-only modules it declares in files of their own (`#[cfg(test)] mod name;`).
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut files = vec![];
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = rest[at + "#[cfg(test)]".len()..].trim_start();
        let item = after
            .strip_prefix("pub(crate) ")
            .or_else(|| after.strip_prefix("pub "))
            .unwrap_or(after);
        let Some(decl) = item.strip_prefix("mod ") else {
            out.push_str("#[cfg(test)]");
            rest = &rest[at + "#[cfg(test)]".len()..];
            continue;
        };
        let name: String = decl
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let decl = decl[name.len()..].trim_start();
        if let Some(tail) = decl.strip_prefix(';') {
            files.push(name);
            rest = tail;
        } else {
            let body = decl.strip_prefix('{').expect("a module body");
            let mut depth = 1;
            let mut end = body.len();
            for (i, c) in body.char_indices() {
                depth += match c {
                    '{' => 1,
                    '}' => -1,
                    _ => 0,
                };
                if depth == 0 {
                    end = i + 1;
                    break;
                }
            }
            rest = &body[end..];
        }
    }
    out.push_str(rest);
    (out, files)
}

/// The first path segments after each `crate::` in `code`, through nested `use` lists.
fn crate_refs(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut refs = vec![];
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(list) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut start = true;
            for (i, c) in list.char_indices() {
                if depth == 1 && start {
                    let name = ident(&list[i..]);
                    if !name.is_empty() {
                        refs.push(name);
                    }
                }
                start = false;
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => start = true,
                    _ => {}
                }
            }
        } else {
            refs.push(ident(rest));
        }
    }
    refs
}

/// The names `lib.rs` re-exports, each with the top-level module it comes from.
fn root_reexports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for stmt in lib.split(';') {
        let Some(path) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module: String = path
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !modules.contains(&module) {
            continue;
        }
        let tail = &path[module.len()..];
        let exported: Vec<String> = if let Some(alias) = tail.trim().strip_prefix("as ") {
            vec![alias.trim().to_string()]
        } else if let (Some(open), Some(close)) = (tail.find('{'), tail.rfind('}')) {
            tail[open + 1..close]
                .split(',')
                .map(|n| n.split(" as ").last().unwrap_or(n).trim().to_string())
                .collect()
        } else {
            vec![tail.rsplit("::").next().unwrap_or("").trim().to_string()]
        };
        for name in exported.into_iter().filter(|n| !n.is_empty()) {
            names.insert(name, module.clone());
        }
    }
    names
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The graph of the crate's top-level modules.
fn graph() -> Graph {
    let src = src();
    let mut all = vec![];
    files(&src, &mut all);
    let top = |path: &Path| -> String {
        let first = path
            .strip_prefix(&src)
            .unwrap()
            .components()
            .next()
            .unwrap();
        let name = first.as_os_str().to_string_lossy();
        name.strip_suffix(".rs").unwrap_or(&name).to_string()
    };
    let modules: BTreeSet<String> = all.iter().map(|p| top(p)).filter(|m| m != "lib").collect();
    let lib = code(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let reexports = root_reexports(&lib, &modules);
    // Files declared `#[cfg(test)] mod name;` are test code, not part of the layers.
    let mut test_files = BTreeSet::new();
    let mut texts = BTreeMap::new();
    for path in &all {
        let (text, tests) = without_tests(&code(&fs::read_to_string(path).unwrap()));
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        let dir = if stem == "mod" || stem == "lib" {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        for t in tests {
            test_files.insert(dir.join(format!("{t}.rs")));
            test_files.insert(dir.join(&t).join("mod.rs"));
        }
        texts.insert(path.clone(), text);
    }
    let mut graph = Graph::new();
    for (path, text) in &texts {
        let from = top(path);
        if from == "lib" || test_files.contains(path) {
            continue;
        }
        graph.entry(from.clone()).or_default();
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .to_string();
        for name in crate_refs(text) {
            let to = if modules.contains(&name) {
                name
            } else if let Some(m) = reexports.get(&name) {
                m.clone()
            } else {
                continue;
            };
            if to != from {
                graph
                    .entry(from.clone())
                    .or_default()
                    .entry(to)
                    .or_default()
                    .insert(rel.clone());
            }
        }
    }
    graph
}

/// The strongly connected components of `graph` (Tarjan), each sorted.
fn components(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flat_map(|e| e.keys()) {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.stack.contains(&w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = vec![];
            while let Some(w) = s.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            comp.sort();
            s.out.push(comp);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: vec![],
        out: vec![],
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = graph();
    assert!(graph.len() >= 10, "found only {:?}", graph.keys());
    let cycles: Vec<Vec<String>> = components(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .collect();
    let mut report = String::new();
    for cycle in &cycles {
        report.push_str(&format!("cycle between {cycle:?}:\n"));
        for from in cycle {
            for (to, files) in &graph[from] {
                if cycle.contains(to) {
                    report.push_str(&format!("  {from} -> {to} in {files:?}\n"));
                }
            }
        }
    }
    assert!(cycles.is_empty(), "{report}");
    // Tarjan emits components callees first: this is the order the layers read bottom-up.
    let order: Vec<String> = components(&graph).into_iter().flatten().collect();
    println!("layers, bottom-up: {}", order.join(" < "));
}

/// Code of `compiler/` and `transforms/` has no catch-all arm: a rule or a compiler pass
/// that meets a primitive it was not written for is a compile error, not a silent default.
/// (A rewrite tests its pattern with `if let` or `let ... else` instead.) The block
/// interpreter (`compiler/kernel/`, `compiler/pairwise.rs`) is left out: its matches are
/// over its own nodes, value runs and loop orders, never over primitives.
#[test]
fn rule_and_compiler_code_has_no_catch_all_arm() {
    let interpreter = [
        src().join("compiler/kernel"),
        src().join("compiler/pairwise.rs"),
    ];
    let mut found = vec![];
    for dir in ["compiler", "transforms"] {
        let mut all = vec![];
        files(&src().join(dir), &mut all);
        for path in all {
            if interpreter.iter().any(|i| path.starts_with(i)) {
                continue;
            }
            let (text, _) = without_tests(&code(&fs::read_to_string(&path).unwrap()));
            for (n, line) in text.lines().enumerate() {
                if line.trim_start().starts_with("_ =>") {
                    let rel = path.strip_prefix(src()).unwrap().display().to_string();
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "catch-all arms:\n{}", found.join("\n"));
}

#[test]
fn the_reader_finds_references() {
    let text = code(
        "use crate::{array::{Array, DType}, core::Tensor};\n// crate::memory\n\
         fn f() { crate::env::cores(); let s = \"crate::numpy\"; }\n\
         #[cfg(test)]\nmod tests { use crate::random; }\n",
    );
    let (text, tests) = without_tests(&text);
    assert_eq!(crate_refs(&text), ["array", "core", "env"]);
    assert!(tests.is_empty());
    let (_, tests) = without_tests("#[cfg(test)]\nmod reference;\n");
    assert_eq!(tests, ["reference"]);
    let modules = ["array", "numpy"].map(String::from).into();
    let names = root_reexports(
        "pub use array::{Array, DType};\npub use numpy as jnp;",
        &modules,
    );
    assert_eq!(names["DType"], "array");
    assert_eq!(names["jnp"], "numpy");
}

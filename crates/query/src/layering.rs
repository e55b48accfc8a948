//! The crate's files read top to bottom: no file refers (`use crate::x`, `crate::x::` paths) to
//! a file that refers back to it, directly or through others. This test reads the sources,
//! draws that graph (a name the crate root re-exports counts as the file that defines it) and
//! fails with the loop it finds, so a new dependency pointing back up is caught when it is
//! written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Source files under `src/`, as module names (`prefilter/tests.rs` is `prefilter::tests`).
fn sources(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let name = format!("{prefix}{stem}");
        if path.is_dir() {
            sources(&path, &format!("{name}::"), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            out.insert(name, text);
        }
    }
}

/// The code of `text` without comment lines (doc links may point anywhere).
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first names after each `crate::`, looking into `crate::{a, b::c}` groups.
fn crate_refs(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        // Not the tail of a longer path (`ndq_crate::`).
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
        {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(inner.split(',').map(|p| ident(p.trim()).to_owned()));
        } else {
            names.push(ident(rest).to_owned());
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// `pub use m::{A, B};` / `pub use m::A;` in the crate root: each re-exported name's module.
fn reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for line in code(lib).lines() {
        let Some(rest) = line.trim().strip_prefix("pub use ") else {
            continue;
        };
        let module = ident(rest).to_owned();
        let items = rest[module.len()..].trim_start_matches("::");
        let items = items
            .trim_end_matches(';')
            .trim_matches(|c| c == '{' || c == '}');
        for item in items.split(',') {
            let item = item.trim();
            let name = item.rsplit(" as ").next().unwrap_or(item);
            map.insert(
                ident(name.rsplit("::").next().unwrap_or(name)).to_owned(),
                module.clone(),
            );
        }
    }
    map
}

/// One loop of `graph`, as the files along it, if there is one.
fn find_loop(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// The graph of `crate::` references between the files in `files`.
fn graph(files: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let exported = files.get("lib").map(|l| reexports(l)).unwrap_or_default();
    let mut graph = BTreeMap::new();
    for (name, text) in files {
        let code = code(text);
        let mut to: BTreeSet<String> = crate_refs(&code)
            .into_iter()
            .map(|r| {
                if files.contains_key(&r) {
                    r
                } else {
                    exported
                        .get(&r)
                        .cloned()
                        .unwrap_or_else(|| "lib".to_owned())
                }
            })
            .collect();
        // A file in a folder (`prefilter/tests.rs`) that reads `super::` reads its parent.
        if let Some((parent, _)) = name.rsplit_once("::")
            && code.contains("super::")
        {
            to.insert(parent.to_owned());
        }
        to.remove(name);
        graph.insert(name.clone(), to);
    }
    graph
}

#[test]
fn no_file_refers_back_to_a_file_that_refers_to_it() {
    let mut files = BTreeMap::new();
    sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut files,
    );
    assert!(
        files.len() > 10,
        "the sources were not found: {:?}",
        files.keys()
    );
    let graph = graph(&files);
    if let Some(cycle) = find_loop(&graph) {
        panic!(
            "files refer to each other in a loop: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn a_loop_through_a_reexport_is_found() {
    let files: BTreeMap<String, String> = [
        ("lib", "mod a;\nmod b;\npub use b::Worker;\n"),
        ("a", "use crate::Worker;\n"),
        (
            "b",
            "// crate::a in a comment does not count\nuse crate::{a::Thing, lib_item};\n",
        ),
    ]
    .into_iter()
    .map(|(n, t)| (n.to_owned(), t.to_owned()))
    .collect();
    let cycle = find_loop(&graph(&files)).expect("a -> b -> a");
    assert_eq!(cycle, ["a", "b", "a"]);
    let mut fixed = files.clone();
    fixed.insert("b".into(), "// crate::a\nuse crate::lib_item;\n".into());
    assert_eq!(find_loop(&graph(&fixed)), None);
}

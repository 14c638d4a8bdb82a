//! The layout `src/lib.rs` states, checked: imports between the top-level modules flow one way
//! (commands → server → lobby / tournament / class → room → store / players → protocol → ai → engine, with the helpers from
//! anywhere), the pure game never sees a stored row, and every `senet serve` default is written
//! once (a bare `senet serve` parses to the library's own defaults), no file in `src/` is over
//! 600 lines, and inside a module no files import one another in a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Parser;
use senet::lobby::LobbyConfig;
use senet::room::RoomConfig;
use senet::server::config::Config;

/// The layers, from the outside in: a module may import from its own layer and the layers below
/// it, never from a layer above. `loadgen` is a client: it sits on the protocol, not the server.
const LAYERS: &[&[&str]] = &[
    &["commands"],
    &["server", "web"],
    &["lobby", "tournament", "class"],
    &["room"],
    &["store", "players"],
    &["analysis", "lessons", "loadgen", "puzzles"],
    &["protocol"],
    &["ai"],
    &["engine"],
];

/// Leaf helpers any module may import; they themselves import only each other and the layers
/// from the protocol down.
const HELPERS: &[&str] = &["fairness", "secrets", "telemetry", "os"];
const HELPERS_MAY_IMPORT: &[&str] = &["protocol", "ai", "engine"];

/// Files of pure values (decide and fold, no I/O): they import nothing from the store.
const PURE: &[&str] = &[
    "src/room/game",
    "src/engine",
    "src/analysis",
    "src/puzzles",
    "src/tournament/pairing",
    "src/tournament/event.rs",
    "src/tournament/fold.rs",
    "src/tournament/decide.rs",
    "src/tournament/standings.rs",
    "src/tournament/verify.rs",
];

#[test]
fn imports_flow_one_way() {
    let violations: Vec<String> = imports()
        .into_iter()
        .filter(|import| !allowed(&import.from, &import.to))
        .map(|import| import.to_string())
        .collect();
    assert!(
        violations.is_empty(),
        "imports against the layer order of src/lib.rs:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_modules_import_one_another_without_cycles() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for import in imports() {
        graph.entry(import.from).or_default().insert(import.to);
    }
    for start in graph.keys() {
        let mut path = vec![start.clone()];
        assert!(
            !reaches(&graph, start, start, &mut path, &mut BTreeSet::new()),
            "the modules import one another in a cycle: {}",
            path.join(" → ")
        );
    }
}

/// Inside one top-level module, files import one another without a circle: a circle means a type
/// lives in the wrong file (give it a home below both users). A file naming its own ancestors
/// (`super::`, the module it is declared in) is nesting, not an import, and is not counted.
#[test]
fn files_inside_a_module_import_one_another_without_circles() {
    let graph = file_graph();
    assert!(
        graph.values().map(BTreeSet::len).sum::<usize>() > 100,
        "the scan found too few imports between files"
    );
    // Each circle once, however many of its files it is found from.
    let mut circles = BTreeMap::new();
    for start in graph.keys() {
        let mut path = vec![start.clone()];
        if reaches(&graph, start, start, &mut path, &mut BTreeSet::new()) {
            let members: BTreeSet<String> = path.iter().cloned().collect();
            circles.entry(members).or_insert_with(|| path.join(" → "));
        }
    }
    let circles: Vec<String> = circles.into_values().collect();
    assert!(
        circles.is_empty(),
        "files that import one another in a circle:\n{}",
        circles.join("\n")
    );
}

/// Every file of `src/` (as its module path, `room/game/chat`) → the files of the same top-level
/// module whose items it names, ancestors left out.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let modules: BTreeSet<Vec<String>> = rust_files(&root.join("src"))
        .iter()
        .map(|path| module_path(&relative(root, path)))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in rust_files(&root.join("src")) {
        let own = module_path(&relative(root, &path));
        if own.len() < 2 {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Unit tests (a `#[cfg(test)]` module at the end of the file) are left out.
        let code: String = text
            .split("#[cfg(test)]\nmod tests {")
            .next()
            .unwrap()
            .lines()
            .map(|line| line.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        for named in named_paths(&code, &own) {
            let Some(target) = (1..=named.len())
                .rev()
                .map(|n| named[..n].to_vec())
                .find(|prefix| modules.contains(prefix))
            else {
                continue;
            };
            let ancestor = own.starts_with(&target);
            if target[0] == own[0] && !ancestor {
                graph
                    .entry(own.join("/"))
                    .or_default()
                    .insert(target.join("/"));
            }
        }
    }
    graph
}

fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The module paths a file's code names, made absolute: `crate::a::b`, `super::a`, `self::a`, and
/// a child module's `child::x` (every `{...}` group expanded).
fn named_paths(code: &str, own: &[String]) -> Vec<Vec<String>> {
    let children: BTreeSet<String> = code
        .lines()
        .filter_map(|line| {
            let line = line.trim_start().trim_start_matches("pub ");
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect();
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let word_start = |i: usize| {
        i == 0
            || !(bytes[i - 1].is_ascii_alphanumeric()
                || bytes[i - 1] == b'_'
                || bytes[i - 1] == b':')
    };
    for (i, _) in code.char_indices().filter(|&(i, _)| word_start(i)) {
        let rest = &code[i..];
        let (base, tail): (Vec<String>, &str) = if let Some(tail) = rest.strip_prefix("crate::") {
            (Vec::new(), tail)
        } else if let Some(tail) = rest.strip_prefix("self::") {
            (own.to_vec(), tail)
        } else if rest.starts_with("super::") {
            let mut base = own.to_vec();
            let mut tail = rest;
            while let Some(next) = tail.strip_prefix("super::") {
                base.pop();
                tail = next;
            }
            (base, tail)
        } else if let Some(child) = children
            .iter()
            .find(|child| rest.starts_with(&format!("{child}::")))
        {
            let mut base = own.to_vec();
            base.push(child.clone());
            (base, &rest[child.len() + 2..])
        } else {
            continue;
        };
        for path in use_tree(tail) {
            found.push(base.iter().cloned().chain(path).collect());
        }
    }
    found
}

/// The paths of a use tree (`a::b`, `a::{b, c::d}`), each as its segments.
fn use_tree(text: &str) -> Vec<Vec<String>> {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut depth = 0;
        let mut start = 0;
        let mut paths = Vec::new();
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths.extend(use_tree(&group[start..i]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths.extend(use_tree(&group[start..i]));
                    start = i + 1;
                }
                _ => {}
            }
        }
        return paths;
    }
    let head: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if head.is_empty() || head == "self" {
        return vec![Vec::new()];
    }
    match text[head.len()..].strip_prefix("::") {
        Some(tail) => use_tree(tail)
            .into_iter()
            .map(|path| std::iter::once(head.clone()).chain(path).collect())
            .collect(),
        None => vec![vec![head]],
    }
}

#[test]
fn pure_files_never_see_the_store() {
    let impure: Vec<String> = imports()
        .into_iter()
        .filter(|import| import.to == "store" && PURE.iter().any(|p| import.file.starts_with(p)))
        .map(|import| import.to_string())
        .collect();
    assert!(
        impure.is_empty(),
        "pure files import the store:\n{}",
        impure.join("\n")
    );
}

/// The parser the `serve` subcommand flattens, alone.
#[derive(Parser)]
struct Serve {
    #[command(flatten)]
    config: Config,
}

#[test]
fn a_bare_senet_serve_parses_to_the_library_defaults() {
    // Only this test of this file reads the environment: the others read files.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy().into_owned();
        if name.starts_with("SENET_") || name == "DATABASE_URL" {
            // SAFETY: no other thread of this test binary reads or writes the environment.
            unsafe { std::env::remove_var(&name) };
        }
    }
    let parsed = Serve::try_parse_from(["serve"])
        .expect("a bare `serve` parses")
        .config;
    assert_eq!(parsed, Config::default());
    assert_eq!(parsed.lobby_config(), LobbyConfig::default());
    assert_eq!(
        format!("{:?}", parsed.room_config()),
        format!("{:?}", RoomConfig::default())
    );
}

/// One `crate::module` named in code (not in a comment) of a file.
struct Import {
    file: String,
    line: usize,
    from: String,
    to: String,
}

impl std::fmt::Display for Import {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {} → {}",
            self.file, self.line, self.from, self.to
        )
    }
}

fn layer(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn allowed(from: &str, to: &str) -> bool {
    if from == to || HELPERS.contains(&to) {
        return true;
    }
    if HELPERS.contains(&from) {
        return HELPERS_MAY_IMPORT.contains(&to);
    }
    match (layer(from), layer(to)) {
        (Some(from), Some(to)) => from <= to,
        _ => false,
    }
}

fn reaches(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &str,
    target: &str,
    path: &mut Vec<String>,
    seen: &mut BTreeSet<String>,
) -> bool {
    for next in graph.get(from).into_iter().flatten() {
        path.push(next.clone());
        if next == target {
            return true;
        }
        if seen.insert(next.clone()) && reaches(graph, next, target, path, seen) {
            return true;
        }
        path.pop();
    }
    false
}

/// Every cross-module import of every file in `src/` (besides lib.rs and main.rs, the root).
fn imports() -> Vec<Import> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for path in rust_files(&root.join("src")) {
        let file = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Some(own) = module_path(&file).first().cloned() else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for to in named_modules(code) {
                if to != own {
                    found.push(Import {
                        file: file.clone(),
                        line: number + 1,
                        from: own.clone(),
                        to,
                    });
                }
            }
        }
    }
    assert!(
        found.len() > 100,
        "the scan found too few imports: {}",
        found.len()
    );
    found
}

/// The top-level modules a line of code names: `crate::x` and `crate::{x, y::z}` (the house
/// style writes every path to another top-level module from `crate::`).
fn named_modules(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .flat_map(|(start, _)| heads(&code[start + "crate::".len()..]))
        .collect()
}

/// The first identifier of a path, or of each path in a `{...}` group.
fn heads(path: &str) -> Vec<String> {
    let ident = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(group) = path.strip_prefix('{') else {
        return vec![ident(path)]
            .into_iter()
            .filter(|head| !head.is_empty())
            .collect();
    };
    let mut depth = 0;
    let mut heads = vec![ident(group)];
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => heads.push(ident(&group[i + 1..])),
            _ => {}
        }
    }
    heads.retain(|head| !head.is_empty() && head != "self");
    heads
}

/// `src/room/task/bot_turn.rs` → `[room, task, bot_turn]`; `src/room/mod.rs` → `[room]`.
fn module_path(file: &str) -> Vec<String> {
    let inner = file.trim_start_matches("src/").trim_end_matches(".rs");
    let mut parts: Vec<String> = inner.split('/').map(str::to_owned).collect();
    if parts
        .last()
        .is_some_and(|last| last == "mod" || last == "lib" || last == "main")
    {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The longest a source file may be: a file past it does more than one job (split it by concern).
const MAX_LINES: usize = 600;

#[test]
fn no_file_in_src_is_over_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = rust_files(&root.join("src"));
    assert!(
        files.len() > 100,
        "the scan found too few files: {}",
        files.len()
    );
    let long: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let lines = std::fs::read_to_string(path).unwrap().lines().count();
            let file = path.strip_prefix(root).unwrap().display();
            (lines > MAX_LINES).then(|| format!("{file}: {lines} lines"))
        })
        .collect();
    assert!(
        long.is_empty(),
        "files in src/ over {MAX_LINES} lines (split each by concern):\n{}",
        long.join("\n")
    );
}

//! The floors of `ecs-core` (`docs/architecture.md`): every `crate::…` path in
//! its source points at the same or a lower floor, except the edges of the hub
//! around `World` listed below.

use std::collections::BTreeSet;
use std::path::Path;

/// Each top-level module of `ecs-core/src` and its floor.
const FLOORS: &[(&str, u32)] = &[
    ("panics", 0),
    ("hashers", 0),
    ("names", 0),
    ("parallel", 0),
    ("storage", 1),
    ("entity", 2),
    ("error", 2),
    ("component", 3),
    ("archetype", 4),
    ("bundle", 4),
    ("world", 5),
    ("resource", 5),
    ("query", 6),
    ("system", 7),
    ("event", 8),
    ("observer", 8),
    ("command", 8),
    ("message", 8),
    ("relationship", 9),
    ("snapshot", 9),
    ("serialize", 10),
    ("guide", 11),
    ("lib", 11),
];

/// The upward edges of the hub around `World` (file, module it imports).
const HUB: &[(&str, &str)] = &[
    ("component/hooks.rs", "world"),
    ("world/deferred.rs", "command"),
    ("world/deferred.rs", "event"),
    ("world/deferred.rs", "observer"),
    ("world/lifecycle.rs", "command"),
    ("world/lifecycle.rs", "observer"),
    ("world/mod.rs", "event"),
    ("world/mod.rs", "observer"),
    ("system/param.rs", "command"),
];

fn floor(module: &str) -> Option<u32> {
    FLOORS.iter().find(|(name, _)| *name == module).map(|&(_, floor)| floor)
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read ecs-core/src") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::module` paths of one line of code (comments skipped).
fn imported_modules(line: &str) -> Vec<&str> {
    let code = line.trim_start();
    if code.starts_with("//") {
        return Vec::new();
    }
    let code = code.split("//").next().unwrap_or(code);
    code.match_indices("crate::")
        .map(|(at, _)| {
            let rest = &code[at + "crate::".len()..];
            let end = rest.find(|c: char| !(c.is_ascii_lowercase() || c == '_')).unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

#[test]
fn no_folder_imports_a_higher_floor_outside_the_hub() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("ecs-core/src");
    let mut paths = Vec::new();
    files(&src, &mut paths);
    assert!(paths.len() > 50, "found only {} files under {}", paths.len(), src.display());
    let mut upward = BTreeSet::new();
    let mut hub_seen = BTreeSet::new();
    for path in &paths {
        let relative = path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let top = relative.split('/').next().unwrap().trim_end_matches(".rs");
        let from = floor(top).unwrap_or_else(|| panic!("{relative}: module `{top}` has no floor in FLOORS"));
        let text = std::fs::read_to_string(path).unwrap();
        // Unit tests may reach anywhere.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        for line in code.lines() {
            for module in imported_modules(line) {
                let Some(to) = floor(module) else { continue };
                if to <= from {
                    continue;
                }
                if HUB.contains(&(relative.as_str(), module)) {
                    hub_seen.insert((relative.clone(), module.to_string()));
                } else {
                    upward.insert(format!("{relative} (floor {from}) imports crate::{module} (floor {to})"));
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports from a higher floor:\n{}", upward.into_iter().collect::<Vec<_>>().join("\n"));
    // A hub edge that no longer exists should leave the list, so that it cannot
    // come back unnoticed.
    let stale: Vec<_> =
        HUB.iter().filter(|(file, module)| !hub_seen.contains(&(file.to_string(), module.to_string()))).collect();
    assert!(stale.is_empty(), "hub edges that no longer exist (remove them from HUB): {stale:?}");
}

//! Type names as users write them: `Query<&mut game::Position, With<game::Player>>`,
//! not `ecs_core::system::param::Query<&mut game::Position, ecs_core::query::filter::With<game::Player>>`.
//!
//! `core::any::type_name` spells every path in full; messages cut the paths of
//! this crate's and the standard library's items to their last segment and keep
//! the user's own (which tell two `Position`s of different modules apart). Names
//! are made once per type and kept, so errors can hold them as `&'static str`.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::parallel::annotate;

/// Crates whose paths are noise in a message: ours and the standard library's.
const CUT: [&str; 4] = ["ecs_core::", "core::", "alloc::", "std::"];

/// `full` with the paths of this crate's and the standard library's items cut to
/// their last segment: `Query<&mut game::Position>` keeps the user's own path,
/// which tells their types apart, and loses `ecs_core::system::param::`.
pub(crate) fn short_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut rest = full;
    while !rest.is_empty() {
        // A path: identifier characters and `::` separators.
        let len = path_len(rest);
        if len == 0 {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let path = &rest[..len];
        if CUT.iter().any(|prefix| path.starts_with(prefix)) {
            out.push_str(path.rsplit("::").next().expect("split yields one piece"));
        } else {
            out.push_str(path);
        }
        rest = &rest[len..];
    }
    out
}

/// The length of the path at the start of `s` (0 when none starts there).
fn path_len(s: &str) -> usize {
    let mut len = 0;
    loop {
        let ident = s[len..].find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(s.len() - len);
        if ident == 0 {
            return len;
        }
        len += ident;
        if s[len..].starts_with("::") {
            len += 2;
        } else {
            return len;
        }
    }
}

/// `make(key)`, made once per `key` and kept. Not generic, and its callers
/// pass plain strings: it is compiled once, not per named type (every
/// component and query names itself).
fn interned(key: &'static str, make: &dyn Fn() -> String) -> &'static str {
    static NAMES: OnceLock<Mutex<HashMap<&'static str, &'static str>>> = OnceLock::new();
    let names = annotate::once(&NAMES, Default::default);
    // A poisoned lock only means another thread panicked while inserting; the map
    // is still a valid cache.
    let mut names = annotate::lock(names);
    names.entry(key).or_insert_with(|| Box::leak(make().into_boxed_str()))
}

/// `name`, kept for the rest of the process once per distinct text: the name
/// of something made at run time (a dynamic system), which the crate hands
/// out as `&'static str` like the names of types.
pub(crate) fn intern(name: &str) -> &'static str {
    static KEPT: OnceLock<Mutex<std::collections::HashSet<&'static str>>> = OnceLock::new();
    let mut kept = annotate::lock(annotate::once(&KEPT, Default::default));
    if let Some(&known) = kept.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    kept.insert(leaked);
    leaked
}

/// `T`'s name as a user writes it.
#[inline]
pub(crate) fn type_name<T: ?Sized>() -> &'static str {
    short_type_name(core::any::type_name::<T>())
}

/// [`short_name`] of a full type name, interned.
fn short_type_name(full: &'static str) -> &'static str {
    if !full.contains("::") {
        return full;
    }
    interned(full, &|| short_name(full))
}

/// A query's name as a user writes it: `Query<(Entity, &Position), With<Player>>`,
/// or `Query<&Position>` without a filter.
#[inline]
pub(crate) fn query_name<Q: ?Sized, F: ?Sized>() -> &'static str {
    query_name_of(core::any::type_name::<(fn(&Q), fn(&F))>(), core::any::type_name::<Q>(), core::any::type_name::<F>())
}

/// [`query_name`] from the full names: the key, the data and the filter.
fn query_name_of(key: &'static str, data: &'static str, filter: &'static str) -> &'static str {
    interned(key, &|| {
        let (q, f) = (short_name(data), short_name(filter));
        if f == "()" { format!("Query<{q}>") } else { format!("Query<{q}, {f}>") }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_paths_shrink_and_users_paths_stay() {
        assert_eq!(
            short_name(
                "ecs_core::system::param::Query<&mut game::Position, ecs_core::query::filter::With<a::b::Player>>"
            ),
            "Query<&mut game::Position, With<a::b::Player>>"
        );
        assert_eq!(short_name("(u32, core::option::Option<&alloc::string::String>)"), "(u32, Option<&String>)");
        assert_eq!(short_name("[core_game::Id; 2]"), "[core_game::Id; 2]");
        assert_eq!(short_name("Plain"), "Plain");
    }

    #[test]
    fn query_names_read_as_written() {
        struct Position;
        struct Player;
        // (These types live in `ecs_core`, so their paths are cut too.)
        assert_eq!(query_name::<&mut Position, ()>(), "Query<&mut Position>");
        assert_eq!(
            query_name::<(crate::Entity, &Position), crate::With<Player>>(),
            "Query<(Entity, &Position), With<Player>>"
        );
    }
}

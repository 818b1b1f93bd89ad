//! Helpers shared by the integration tests (a module, not a test target).

/// The message of a caught panic (`panic!("…")` with or without arguments).
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// A property test's number of cases: `PROPTEST_CASES` when set (CI sets it
/// low for the run under valgrind, some fifty times slower), else `default`.
/// An explicit `cases` in a `ProptestConfig` would otherwise override it.
#[allow(dead_code, reason = "not every test target that shares this module uses it")]
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

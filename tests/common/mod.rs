//! Helpers shared by the integration tests (a module, not a test target).

/// The message of a caught panic (`panic!("…")` with or without arguments).
pub fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

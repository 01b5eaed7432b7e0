//! Panics a test provokes on purpose: their message, and whether it names the test's own
//! line. Each test binary uses part of it.
#![allow(dead_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};

/// The message of the panic `f` raises (it must raise one).
pub fn message<R>(f: impl FnOnce() -> R) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(_) => panic!("expected a panic"),
        Err(e) => e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .expect("a string panic payload"),
    }
}

/// Asserts the message points at `line` of the calling test file and mentions every one of
/// `parts`.
#[track_caller]
pub fn assert_mentions(msg: &str, line: u32, parts: &[&str]) {
    let at = format!("{}:{line}:", std::panic::Location::caller().file());
    assert!(msg.contains(&at), "{msg:?} does not name {at}");
    for p in parts {
        assert!(msg.contains(p), "{msg:?} does not mention {p:?}");
    }
}

//! Python's syntax for the parameters a jaxpr prints: tuples, lists and booleans.

use std::fmt;

/// Python's tuple syntax: `()`, `(0,)`, `(0, 1)`.
pub(crate) fn tuple<T: fmt::Display>(items: &[T]) -> String {
    let s: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    tuple_of_strings(&s)
}

pub(crate) fn tuple_of_strings(items: &[String]) -> String {
    match items.len() {
        1 => format!("({},)", items[0]),
        _ => format!("({})", items.join(", ")),
    }
}

/// Python's list syntax: `[]`, `[0]`, `[0, 1]`.
pub(crate) fn list(items: &[usize]) -> String {
    let s: Vec<String> = items.iter().map(|x| x.to_string()).collect();
    format!("[{}]", s.join(", "))
}

pub(crate) fn py_bool(b: bool) -> String {
    if b { "True" } else { "False" }.into()
}

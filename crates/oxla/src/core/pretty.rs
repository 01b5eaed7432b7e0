//! Printing jaxprs in JAX's grammar, laid out as JAX lays them out.
//!
//! The layout engine is a Wadler-style document printer: a group prints flat when its own
//! flat width fits in what is left of the line (80 columns), else its breaks become newlines.
//! The jaxpr document has the same groups, nests and breaks as JAX's, so line breaking
//! matches JAX's.

use std::collections::HashMap;
use std::fmt;

use super::jaxpr::{Atom, ClosedJaxpr, Eqn, Jaxpr, Var};
use crate::array::{Array, DType};

/// A document to lay out.
#[derive(Clone, Debug)]
enum Doc {
    Text(String),
    /// A break: its text when flat, a newline plus indentation when broken.
    Brk(&'static str),
    Concat(Vec<Doc>),
    Group(Box<Doc>),
    Nest(usize, Box<Doc>),
    /// Text followed by an end-of-line annotation (the source line).
    Annotated(String, String),
}

fn text(s: impl Into<String>) -> Doc {
    Doc::Text(s.into())
}
fn group(d: Doc) -> Doc {
    Doc::Group(Box::new(d))
}
fn nest(n: usize, d: Doc) -> Doc {
    Doc::Nest(n, Box::new(d))
}
fn join(sep: Doc, items: Vec<Doc>) -> Doc {
    let mut out = Vec::with_capacity(items.len() * 2);
    for (i, d) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(sep.clone());
        }
        out.push(d);
    }
    Doc::Concat(out)
}

fn flat_width(d: &Doc) -> usize {
    match d {
        Doc::Text(s) | Doc::Annotated(s, _) => s.chars().count(),
        Doc::Brk(s) => s.len(),
        Doc::Concat(ds) => ds.iter().map(flat_width).sum(),
        Doc::Group(d) | Doc::Nest(_, d) => flat_width(d),
    }
}

/// Lays a document out in `width` columns; returns lines with their annotations.
fn layout(doc: &Doc, width: usize) -> Vec<(String, Option<String>)> {
    let mut lines = vec![(String::new(), None)];
    let mut col = 0usize;
    // (indent, flat, doc), processed as a stack.
    let mut agenda: Vec<(usize, bool, &Doc)> = vec![(0, false, doc)];
    while let Some((indent, flat, d)) = agenda.pop() {
        match d {
            Doc::Text(s) => {
                lines.last_mut().unwrap().0.push_str(s);
                col += s.chars().count();
            }
            Doc::Annotated(s, note) => {
                let line = lines.last_mut().unwrap();
                line.0.push_str(s);
                line.1 = Some(note.clone());
                col += s.chars().count();
            }
            Doc::Brk(s) => {
                if flat {
                    lines.last_mut().unwrap().0.push_str(s);
                    col += s.len();
                } else {
                    lines.push((" ".repeat(indent), None));
                    col = indent;
                }
            }
            Doc::Concat(ds) => {
                for d in ds.iter().rev() {
                    agenda.push((indent, flat, d));
                }
            }
            Doc::Nest(n, d) => agenda.push((indent + n, flat, d)),
            Doc::Group(d) => {
                let fits = flat || col + flat_width(d) <= width;
                agenda.push((indent, fits, d));
            }
        }
    }
    lines
}

fn render(doc: &Doc) -> String {
    let lines = layout(doc, 80);
    let pad = lines
        .iter()
        .filter(|(_, a)| a.is_some())
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, (line, note)) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
        if let Some(n) = note {
            out.push_str(&" ".repeat(pad - line.chars().count()));
            out.push_str(" # ");
            out.push_str(n);
        }
    }
    out
}

/// Names variables `a`, `b`, ..., `z`, `ba`, `bb`, ... in order of first appearance.
#[derive(Default)]
struct Names {
    names: HashMap<u32, String>,
}

impl Names {
    fn name(&mut self, v: &Var) -> String {
        let n = self.names.len();
        self.names
            .entry(v.id)
            .or_insert_with(|| var_name(n))
            .clone()
    }
}

fn var_name(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).expect("ascii")
}

/// Python's `repr` of a float: shortest round-trip digits, scientific outside `1e-4..1e16`.
pub(crate) fn py_float(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{v:e}");
    let (mant, exp) = sci.split_once('e').expect("LowerExp has an exponent");
    let exp: i32 = exp.parse().expect("integer exponent");
    if (-4..16).contains(&exp) {
        let s = format!("{v}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    }
}

fn literal(a: &Array) -> String {
    let v = a.item();
    let value = match a.dtype() {
        DType::Bool => if v != 0.0 { "True" } else { "False" }.to_string(),
        d if d.is_int() => format!("{}", v as i128),
        _ => py_float(v),
    };
    format!("{value}:{}[]", a.dtype().short_name())
}

struct Printer {
    names: Names,
    source_info: bool,
}

impl Printer {
    fn binders(&mut self, vars: &[Var]) -> Doc {
        let items = vars
            .iter()
            .map(|v| text(format!("{}:{}", self.names.name(v), v.aval)))
            .collect();
        nest(2, group(join(group(Doc::Brk(" ")), items)))
    }

    fn atoms(&mut self, atoms: &[Atom], sep: &str) -> Doc {
        let items = atoms
            .iter()
            .map(|a| match a {
                Atom::Var(v) => text(self.names.name(v)),
                Atom::Lit(l) => text(literal(l)),
            })
            .collect();
        nest(
            2,
            group(join(
                Doc::Concat(vec![text(sep), group(Doc::Brk(" "))]),
                items,
            )),
        )
    }

    fn eqn(&mut self, e: &Eqn) -> Doc {
        let lhs = self.binders(&e.outputs);
        let eq = if self.source_info {
            Doc::Annotated(" = ".into(), e.source.to_string())
        } else {
            text(" = ")
        };
        let params = e.prim.params();
        let kv = if params.is_empty() {
            Doc::Concat(vec![])
        } else {
            let pairs = params
                .into_iter()
                .map(|(k, v)| text(format!("{k}={v}")))
                .collect();
            group(Doc::Concat(vec![
                nest(
                    2,
                    Doc::Concat(vec![text("["), Doc::Brk(""), join(Doc::Brk(" "), pairs)]),
                ),
                Doc::Brk(""),
                text("]"),
            ]))
        };
        let inputs = self.atoms(&e.inputs, "");
        let rhs = [
            text(e.prim.name()),
            kv,
            Doc::Concat(vec![text(" "), inputs]),
        ];
        if e.outputs.is_empty() {
            // An equation without results (a host callback) prints no binders and no `=`.
            return Doc::Concat(rhs.into());
        }
        let mut doc = vec![lhs, eq];
        doc.extend(rhs);
        Doc::Concat(doc)
    }

    fn jaxpr(&mut self, j: &Jaxpr) -> Doc {
        let constvars = self.binders(&j.constvars);
        let invars = self.binders(&j.invars);
        let eqns: Vec<Doc> = j.eqns.iter().map(|e| self.eqn(e)).collect();
        let close = if j.outvars.len() == 1 { ",)" } else { ")" };
        let outvars = Doc::Concat(vec![text("("), self.atoms(&j.outvars, ","), text(close)]);
        Doc::Concat(vec![
            group(nest(
                2,
                Doc::Concat(vec![
                    text("{ lambda "),
                    constvars,
                    text("; "),
                    invars,
                    text(". let"),
                    nest(
                        2,
                        Doc::Concat(vec![Doc::Brk(" "), join(Doc::Brk("; "), eqns)]),
                    ),
                    Doc::Brk(" "),
                    text("in "),
                    outvars,
                ]),
            )),
            text(" }"),
        ])
    }
}

/// Printing options for a jaxpr, as `jaxpr.pretty_print(...)` takes them in JAX.
///
/// ```
/// use oxla::{make_jaxpr, Tensor};
/// let j = make_jaxpr(|x: Tensor| x.sin(), oxla::numpy::ones(&[3]));
/// let text = j.pretty().source_info(true).to_string();
/// assert!(text.contains("sin a"));
/// assert!(text.contains(".rs:"));
/// ```
pub struct Pretty<'a> {
    jaxpr: &'a Jaxpr,
    source_info: bool,
}

impl Pretty<'_> {
    /// Whether to annotate each equation with the user's source line (`# file:line:col`).
    pub fn source_info(mut self, on: bool) -> Self {
        self.source_info = on;
        self
    }
}

impl fmt::Display for Pretty<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut p = Printer {
            names: Names::default(),
            source_info: self.source_info,
        };
        f.write_str(&render(&p.jaxpr(self.jaxpr)))
    }
}

impl Jaxpr {
    /// Printing options; `Display` is `pretty()` with defaults.
    pub fn pretty(&self) -> Pretty<'_> {
        Pretty {
            jaxpr: self,
            source_info: false,
        }
    }
}

impl ClosedJaxpr {
    /// Printing options; `Display` is `pretty()` with defaults.
    pub fn pretty(&self) -> Pretty<'_> {
        self.jaxpr.pretty()
    }
}

impl fmt::Display for Jaxpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pretty().fmt(f)
    }
}

impl fmt::Display for ClosedJaxpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.jaxpr.pretty().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_jax() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 700].map(var_name).to_vec();
        assert_eq!(names, ["a", "b", "z", "ba", "bb", "bz", "ca", "bay"]);
    }

    #[test]
    fn floats_print_as_python_repr() {
        assert_eq!(py_float(2.0), "2.0");
        assert_eq!(py_float(-0.9999999403953552), "-0.9999999403953552");
        assert_eq!(py_float(1e-7), "1e-07");
        assert_eq!(py_float(1e16), "1e+16");
        assert_eq!(py_float(0.0001), "0.0001");
        assert_eq!(py_float(1.4142135381698608), "1.4142135381698608");
        assert_eq!(py_float(123456.0), "123456.0");
    }

    #[test]
    fn a_group_breaks_only_when_its_own_width_overflows() {
        let d = Doc::Concat(vec![
            group(Doc::Concat(vec![
                text("a".repeat(70)),
                Doc::Brk(" "),
                text("b".repeat(9)),
            ])),
            text("x".repeat(10)),
        ]);
        assert_eq!(layout(&d, 80).len(), 1);
        let d = group(Doc::Concat(vec![
            text("a".repeat(70)),
            Doc::Brk(" "),
            text("b".repeat(10)),
        ]));
        assert_eq!(layout(&d, 80).len(), 2);
    }
}

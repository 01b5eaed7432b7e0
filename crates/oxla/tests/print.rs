//! Arrays print as numpy's `str` (`Display`) and JAX's `repr` (`Debug`): goldens from
//! `scripts/gen_golden_print.py` in `tests/golden_print.txt`, for scalars, one to four
//! axes, every dtype, non-finite values, summarised arrays and print options.
//!
//! The print options are process-wide, so every check that depends on them is in one test.

use oxla::{printoptions, Array, DType, PrintOptions, Tensor};

/// One golden case.
struct Case {
    name: String,
    array: Array,
    options: PrintOptions,
    str: String,
    repr: String,
}

fn array(dtype: &str, shape: &[usize], values: Vec<f64>) -> Array {
    match dtype {
        "float32" => Array::from_vec(values.iter().map(|&v| v as f32).collect(), shape),
        "float64" => Array::from_vec(values, shape),
        "int32" => Array::from_vec(values.iter().map(|&v| v as i32).collect(), shape),
        "uint32" => Array::from_vec(values.iter().map(|&v| v as u32).collect(), shape),
        "bool" => Array::from_vec(values.iter().map(|&v| v != 0.0).collect(), shape),
        other => panic!("no dtype {other}"),
    }
}

fn cases() -> Vec<Case> {
    let text = include_str!("golden_print.txt");
    let mut cases = vec![];
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let name = line.strip_prefix("@@ case ").expect("a case").to_string();
        let (mut dtype, mut shape, mut values) = (String::new(), vec![], vec![]);
        let mut options = PrintOptions::default();
        let (mut str, mut repr) = (vec![], vec![]);
        let mut into: Option<&mut Vec<String>> = None;
        for line in lines.by_ref() {
            let Some(tag) = line.strip_prefix("@@ ") else {
                into.as_mut()
                    .expect("text after @@ str or @@ repr")
                    .push(line.to_string());
                continue;
            };
            let (key, rest) = tag.split_once(' ').unwrap_or((tag, ""));
            let words = || rest.split_whitespace();
            match key {
                "dtype" => dtype = rest.to_string(),
                "shape" => shape = words().map(|d| d.parse().unwrap()).collect(),
                "values" => {
                    values = words()
                        .map(|v| match v {
                            "True" => 1.0,
                            "False" => 0.0,
                            v => v.parse().unwrap(),
                        })
                        .collect()
                }
                "arange" => {
                    let f: Vec<f64> = words().map(|v| v.parse().unwrap()).collect();
                    let n: usize = shape.iter().product();
                    values = (0..n).map(|i| i as f64 * f[0] + f[1]).collect();
                }
                "options" => {
                    let o: Vec<usize> = words().map(|v| v.parse().unwrap()).collect();
                    options = PrintOptions {
                        precision: o[0],
                        threshold: o[1],
                        edgeitems: o[2],
                        linewidth: o[3],
                    };
                }
                "str" => into = Some(&mut str),
                "repr" => into = Some(&mut repr),
                "end" => break,
                other => panic!("{name}: unknown line @@ {other}"),
            }
        }
        cases.push(Case {
            array: array(&dtype, &shape, values),
            name,
            options,
            str: str.join("\n"),
            repr: repr.join("\n"),
        });
    }
    cases
}

#[test]
fn arrays_print_as_numpy_and_jax_do() {
    let cases = cases();
    assert!(cases.len() >= 60);
    let mut wrong = vec![];
    for c in &cases {
        let (str, repr) = printoptions(c.options, || {
            (c.array.to_string(), format!("{:?}", c.array))
        });
        // A summarised array's repr also names its shape, as numpy's does.
        let want_repr = if c.array.size() > c.options.threshold {
            let shape: Vec<String> = c.array.shape().iter().map(|d| d.to_string()).collect();
            let tuple = match shape.len() {
                1 => format!("({},)", shape[0]),
                _ => format!("({})", shape.join(", ")),
            };
            c.repr.replace("dtype=", &format!("shape={tuple}, dtype="))
        } else {
            c.repr.clone()
        };
        if str != c.str {
            wrong.push(format!("{} str:\n{str}\nnumpy:\n{}", c.name, c.str));
        }
        if repr != want_repr {
            wrong.push(format!("{} repr:\n{repr}\nJAX:\n{want_repr}", c.name));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n\n")
    );

    // A tensor prints as its array; a 10000x10000 one formats its 36 corner elements only.
    let big = Tensor::new(Array::zeros(DType::F32, &[10_000, 10_000]));
    let row = "[0. 0. 0. ... 0. 0. 0.]";
    let rows = [row; 3].join("\n ");
    assert_eq!(big.to_string(), format!("[{rows}\n ...\n {rows}]"));
    assert!(format!("{big:?}").ends_with("shape=(10000, 10000), dtype=float32)"));

    // Options set stay in force until set again; `printoptions` restores them.
    let three = PrintOptions {
        precision: 3,
        ..PrintOptions::default()
    };
    let third = Tensor::scalar(1.0f64 / 3.0).reshape(&[1]);
    oxla::set_printoptions(three);
    assert_eq!(third.to_string(), "[0.333]");
    assert_eq!(oxla::get_printoptions(), three);
    oxla::set_printoptions(PrintOptions::default());
    assert_eq!(third.to_string(), "[0.33333333]");
}

"""How much of JAX's public API oxla has: per JAX module, what oxla has, lacks, and excludes.

    cargo doc -p oxla --no-deps                   # the script runs it unless --no-build
    python scripts/api_coverage.py                # print counts and lists
    python scripts/api_coverage.py --write-readme # rewrite README's table and docs/api-coverage.md
    python scripts/api_coverage.py --check        # exit 1 if either is stale

JAX's side (needs JAX 0.10: `../jaxenv/bin/python`). A module's public functions are the
names in `dir(module)` that do not start with `_` and whose value is callable but neither a
class (`isinstance(v, type)`: dtypes such as `jnp.float32`, `jnp.ndarray`, `finfo`) nor a
module (`jnp.linalg`). Constants (`pi`, `newaxis`) and index helpers (`s_`, `mgrid`) are
not callable. This gives jax.numpy 344, jax.numpy.linalg 31, jax.numpy.fft 18, jax.lax 204,
jax.nn 35, jax.random 47 and jax.scipy.special 53. jax.lax's three typing aliases
(`DotDimensionNumbers`, ...) pass the rule and are listed as excluded below.

oxla's side is read from rustdoc's HTML (`target/doc/oxla/<module>/index.html`), which has
every macro-generated function and resolves `pub use` (a re-export from a private module is
inlined in the "Functions" section; one from a public module is a "Re-exports" entry named
by its exported name, e.g. `lax::map`, and a glob re-export of a public module is followed).
Only free functions count, not `Tensor` methods. A module oxla lacks (`numpy::fft` before it
exists) has none. A JAX function counts as "has" when oxla's module has a public function of
the same name; a Rust keyword takes a trailing underscore (`where` is `where_`), and a
CamelCase function Rust's snake case (`PRNGKey` is `prng_key`).

"Excluded" names are those oxla does not intend to have, each listed in EXCLUDED with its
reason; everything else oxla does not have "lacks". LATER notes lacking functions that are
another issue's work.
"""
import argparse
import importlib
import os
import re
import subprocess
import sys
import textwrap
from types import ModuleType

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
DETAILS = os.path.join(ROOT, "docs", "api-coverage.md")
BEGIN, END = "<!-- api-coverage:begin -->", "<!-- api-coverage:end -->"

# (JAX module, oxla module path, target count of functions oxla should have: issue #18)
MODULES = [
    ("jax.numpy", "numpy", 270),
    ("jax.numpy.linalg", "numpy::linalg", 24),
    ("jax.numpy.fft", "numpy::fft", 12),
    ("jax.lax", "lax", 140),
    ("jax.nn", "nn", 32),
    ("jax.random", "random", 36),
    ("jax.scipy.special", "scipy::special", 30),
]

EXCLUDED = {
    "jax.numpy": {
        "Python I/O: files, bytes, iterators, DLPack (oxla: oxla::io, Tensor::from_vec)":
        "load save savez fromfile frombuffer fromstring fromiter from_dlpack",
        "printing options and strings (oxla: Display, Debug, oxla::set_printoptions)":
        "array_repr array_str get_printoptions printoptions set_printoptions",
        "numpy's dtype class hierarchy (oxla: DType::kind, DType::is_float, ...)":
        "isdtype issubdtype",
        "Python object introspection (oxla: x.shape(), x.ndim(), x.size())":
        "isscalar iterable ndim shape size",
        "ufuncs from Python callables (oxla: vmap over a closure)": "vectorize frompyfunc",
    },
    "jax.numpy.linalg": {"complex eigenvalues: oxla has no complex dtypes": "eig eigvals"},
    "jax.lax": {
        "typing aliases, not functions": "ConvGeneralDilatedDimensionNumbers "
        "DotDimensionNumbers PrecisionLike",
        "XLA ordering tokens: oxla has no token values": "after_all create_token",
        "StableHLO composites, an XLA lowering device": "composite",
        "symbolic (polymorphic) shapes: oxla's shapes are concrete": "shape_as_value",
        "dtype objects (oxla: x.dtype())": "dtype",
    },
    "jax.nn": {
        "block-scaled fp8/fp4 (MX) products: oxla has no 8- or 4-bit floats":
        "get_scaled_dot_general_config scaled_dot_general scaled_matmul",
    },
    "jax.random": {
        "typed key arrays: oxla's keys are raw u32[2] arrays, as PRNGKey's":
        "key_dtype key_impl",
    },
    "jax.scipy.special": {"complex-valued: oxla has no complex dtypes": "wofz sph_harm_y"},
}
LATER = {
    "jax.lax": {
        "devices past issue #19 (shardings, shard_map's point-to-point and varying types)":
        "pcast precv psend "
        "ragged_all_to_all with_sharding_constraint",
    },
}

RUST_KEYWORDS = set(
    "as async await break const continue crate dyn else enum extern false fn for gen if impl "
    "in let loop match mod move mut pub ref return self static struct super trait true try "
    "type unsafe use where while abstract become box do final macro override priv typeof "
    "unsized virtual yield".split()
)


def jax_functions(name):
    """The public functions of a JAX module, by the rule in this file's docstring."""
    mod = importlib.import_module(name)
    out = []
    for n in dir(mod):
        v = getattr(mod, n)
        if not n.startswith("_") and callable(v) and not isinstance(v, (type, ModuleType)):
            out.append(n)
    return sorted(out)


def sections(page):
    """Map a rustdoc module page's section ids ("functions", "reexports", ...) to their HTML."""
    parts = re.split(r'<h2 id="([a-z-]+)" class="section-header">', page)
    return dict(zip(parts[1::2], parts[2::2]))


def read(path):
    """A file's text, or None if it does not exist."""
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


def submodule(path, name):
    """The index.html of module `name` under the module page at `path`, or None."""
    secs = sections(read(path) or "")
    base = os.path.dirname(path)
    m = re.search(r'<a class="mod" href="(%s/index\.html)"' % name, secs.get("modules", ""))
    if m:
        return os.path.join(base, m.group(1))
    m = re.search(
        r'<dt id="reexport\.%s"><code>[^\n]*?<a class="mod" href="([^"]+)"' % name,
        secs.get("reexports", ""),
    )
    return os.path.normpath(os.path.join(base, m.group(1))) if m else None


def oxla_functions(path, seen=None):
    """The public free functions of the module page at `path`, re-exports resolved."""
    seen = seen if seen is not None else set()
    page = read(path)
    if page is None or path in seen:
        return set()
    seen.add(path)
    secs = sections(page)
    names = set(re.findall(r'<a class="fn" href="fn\.(\w+)\.html"', secs.get("functions", "")))
    for m in re.finditer(r'<dt(?: id="reexport\.(\w+?)(?:-\d+)?")?><code>(.*?)</code>',
                         secs.get("reexports", "")):
        name, code = m.group(1), m.group(2)
        if name and 'class="fn"' in code:
            names.add(name)
        glob = re.search(r'<a class="mod" href="([^"]+)"[^>]*>\w+</a>::\*;$', code)
        if glob:
            target = os.path.normpath(os.path.join(os.path.dirname(path), glob.group(1)))
            names |= oxla_functions(target, seen)
    return names


def oxla_module(doc, path):
    """The functions of oxla module `path` ("numpy::linalg"); none if it does not exist."""
    page = os.path.join(doc, "oxla", "index.html")
    for part in path.split("::"):
        page = submodule(page, part) if page else None
    return oxla_functions(page) if page else set()


def rust_names(name):
    """How oxla may spell JAX's `name`: itself, a keyword with a trailing underscore, and a
    Python CamelCase function in Rust's snake case (`PRNGKey` is `prng_key`)."""
    names = {name, name + "_"} if name in RUST_KEYWORDS else {name}
    if name != name.lower():
        names.add(re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower())
    return names


def coverage(doc):
    """One row per module: counts and the has / lacks / excluded / oxla-only lists."""
    rows = []
    for jax_mod, ox_mod, target in MODULES:
        jax = jax_functions(jax_mod)
        ox = oxla_module(doc, ox_mod)
        excluded = {n: r for r, ns in EXCLUDED.get(jax_mod, {}).items() for n in ns.split()}
        later = {n: r for r, ns in LATER.get(jax_mod, {}).items() for n in ns.split()}
        for n in sorted(set(excluded) | set(later)):
            if n not in jax:
                sys.exit(f"api_coverage: {jax_mod}.{n} is listed but is not one of JAX's")
        has = [n for n in jax if rust_names(n) & ox]
        for n in has:
            if n in excluded:
                print(f"warning: {jax_mod}.{n} is excluded but oxla has it", file=sys.stderr)
        lacks = [n for n in jax if n not in has and n not in excluded]
        rows.append(dict(
            jax=jax_mod, oxla="oxla::" + ox_mod, total=len(jax), target=target, has=has,
            lacks=lacks, later=later,
            excluded={n: r for n, r in excluded.items() if n not in has},
            extra=sorted(ox - {r for j in jax for r in rust_names(j)}),
        ))
    return rows


def table(rows):
    lines = [
        "| JAX module | oxla module | oxla has | of JAX's | target | excluded |",
        "|---|---|--:|--:|--:|--:|",
    ]
    for r in rows:
        lines.append(f"| `{r['jax']}` | `{r['oxla']}` | {len(r['has'])} | {r['total']} "
                     f"| {r['target']} | {len(r['excluded'])} |")
    return "\n".join(lines)


def listing(head, ns):
    """A bold `head` and the names, wrapped at 96 columns for readable diffs."""
    text = f"**{head}** ({len(ns)}): " + (", ".join(f"`{n}`" for n in ns) or "(none)")
    return textwrap.fill(text, 96, break_long_words=False, break_on_hyphens=False)


def details(rows):
    out = [
        "# JAX API coverage",
        "",
        "Generated by `python scripts/api_coverage.py --write-readme` (JAX 0.10 against",
        "oxla's rustdoc); do not edit by hand. \"Excluded\" functions are those oxla does not",
        "intend to have, with the reason; the rules are in the script's docstring.",
        "",
        table(rows),
    ]
    for r in rows:
        out += ["", f"## `{r['jax']}` -> `{r['oxla']}`", "",
                f"Has {len(r['has'])} of {r['total']} (target {r['target']}); "
                f"lacks {len(r['lacks'])}; excluded {len(r['excluded'])}.", ""]
        out.append(listing("Lacks", [n for n in r["lacks"] if n not in r["later"]]))
        for reason in sorted(set(r["later"].values())):
            ns = [n for n in r["lacks"] if r["later"].get(n) == reason]
            out += ["", listing(f"Lacks, {reason}", ns)]
        out += ["", listing("Has", r["has"])]
        for reason in sorted(set(r["excluded"].values())):
            ns = sorted(n for n, why in r["excluded"].items() if why == reason)
            out += ["", listing(f"Excluded, {reason}", ns)]
        if r["extra"]:
            out += ["", listing("oxla's own names, not JAX's", r["extra"])]
    return "\n".join(out) + "\n"


def readme_with(readme, rows):
    i, j = readme.find(BEGIN), readme.find(END)
    if i < 0 or j < i:
        sys.exit(f"api_coverage: README.md lacks the markers {BEGIN} ... {END}")
    return readme[: i + len(BEGIN)] + "\n" + table(rows) + "\n" + readme[j:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write-readme", action="store_true",
                    help="rewrite README.md's table and docs/api-coverage.md")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 if README.md's table or docs/api-coverage.md is stale")
    ap.add_argument("--no-build", action="store_true",
                    help="read the rustdoc already built instead of running cargo doc")
    ap.add_argument("--doc-dir", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "doc"))
    args = ap.parse_args()
    if not args.no_build:
        subprocess.run(["cargo", "doc", "-p", "oxla", "--no-deps", "-q"], cwd=ROOT, check=True)
    if not os.path.exists(os.path.join(args.doc_dir, "oxla", "index.html")):
        sys.exit(f"api_coverage: no rustdoc in {args.doc_dir} (run cargo doc -p oxla --no-deps)")
    rows = coverage(args.doc_dir)
    for r in rows:
        print(f"{r['jax']} -> {r['oxla']}: has {len(r['has'])} of {r['total']} "
              f"(target {r['target']}), lacks {len(r['lacks'])}, excluded {len(r['excluded'])}")
        if args.write_readme or args.check:
            continue
        print(f"  lacks: {' '.join(r['lacks']) or '(none)'}")
        if r["extra"]:
            print(f"  oxla's own names: {' '.join(r['extra'])}")
    print("JAX functions per module: "
          + ", ".join(f"{r['jax']} {r['total']}" for r in rows))
    readme, doc = read(README), details(rows)
    new_readme = readme_with(readme, rows)
    if args.write_readme:
        with open(README, "w", encoding="utf-8") as f:
            f.write(new_readme)
        with open(DETAILS, "w", encoding="utf-8") as f:
            f.write(doc)
    if args.check and (new_readme != readme or read(DETAILS) != doc):
        sys.exit("api_coverage: README.md's table or docs/api-coverage.md is stale: "
                 "run scripts/api_coverage.py --write-readme")


if __name__ == "__main__":
    main()

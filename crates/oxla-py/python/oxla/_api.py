"""JAX's transforms over Python functions of pytrees, on oxla's transforms of flat lists."""

import functools
import inspect

from . import _oxla
from ._oxla import Array
from .config import JIT_DISABLED
from .tree_util import tree_flatten, tree_unflatten

__all__ = [
    "jit",
    "grad",
    "value_and_grad",
    "jvp",
    "vjp",
    "make_jaxpr",
    "explain",
    "block_until_ready",
]


def _flat(fun, treedef, box, call=None):
    """``fun`` of the tree ``treedef`` as a function of its leaves; the structure of its
    output goes into ``box["out"]`` each time it runs."""

    def flat(leaves):
        args, kwargs = tree_unflatten(treedef, leaves)
        out = fun(*args, **kwargs) if call is None else call(args, kwargs)
        out_leaves, box["out"] = tree_flatten(out)
        return out_leaves

    return flat


class ClosedJaxpr:
    """A traced program; ``str()`` prints it as JAX does."""

    def __init__(self, text):
        self._text = text

    def __str__(self):
        return self._text

    def __repr__(self):
        return self._text

    def pretty_print(self):
        return self._text


def make_jaxpr(fun):
    """``make_jaxpr(fun)(*args)``: the jaxpr of ``fun`` on arguments like ``args``."""

    @functools.wraps(fun)
    def traced(*args, **kwargs):
        leaves, treedef = tree_flatten((args, kwargs))
        return ClosedJaxpr(_oxla.make_jaxpr(_flat(fun, treedef, {}), leaves))

    return traced


def explain(fun, *args, **kwargs):
    """The memory plan of ``fun`` compiled for ``args``: every buffer, its size, and the
    equation and line that made it."""
    leaves, treedef = tree_flatten((args, kwargs))
    return _oxla.explain(_flat(fun, treedef, {}), leaves)


class Compiled:
    """A program compiled for one set of argument shapes."""

    def __init__(self, jitted, leaves, out):
        self._jitted = jitted
        self._leaves = leaves
        self._out = out
        self._signature = _signature(leaves)

    def memory_analysis(self):
        """The static memory plan: ``argument_bytes``, ``output_bytes``, ``temp_bytes``,
        ``peak_bytes`` (and JAX's names ``*_size_in_bytes``) and its printed table
        (``str()``)."""
        return MemoryAnalysis(self._jitted.memory_analysis(self._leaves))

    def __call__(self, *args, **kwargs):
        leaves, _ = tree_flatten((args, kwargs))
        if len(leaves) != len(self._leaves):
            raise TypeError(f"the compiled function takes {len(self._leaves)} array "
                            f"arguments, got {len(leaves)}")
        if _signature(leaves) != self._signature:
            raise TypeError("the compiled function was compiled for arguments of shapes and "
                            f"dtypes {self._signature}, got {_signature(leaves)}")
        return tree_unflatten(self._out, self._jitted(leaves))

    def as_text(self):
        """The jaxpr compiled, as JAX prints it."""
        return self._jitted.lowered_text(self._leaves)


class MemoryAnalysis:
    """The figures of a memory plan; ``str()`` is oxla's table of it."""

    def __init__(self, d):
        self._text = d.pop("text")
        for k, v in d.items():
            setattr(self, k, v)
        # JAX's names for the same figures.
        self.argument_size_in_bytes = self.argument_bytes
        self.output_size_in_bytes = self.output_bytes
        self.temp_size_in_bytes = self.temp_bytes

    def __str__(self):
        return self._text

    __repr__ = __str__


class Lowered:
    """A jitted function traced for arguments like the given ones."""

    def __init__(self, jitted, leaves, out):
        self._jitted = jitted
        self._leaves = leaves
        self._out = out

    def compile(self):
        """The compiled program."""
        return Compiled(self._jitted, self._leaves, self._out)

    def as_text(self):
        """The jaxpr traced, as JAX prints it."""
        return self._jitted.lowered_text(self._leaves)


def _static_key(args, kwargs, static_argnums, static_argnames):
    """The static arguments of a call (positions and names with their values, the cache's
    key), and the others."""
    nums = tuple(i % len(args) for i in static_argnums if -len(args) <= i < len(args))
    statics = tuple((i, args[i]) for i in nums) + tuple(
        sorted((k, v) for k, v in kwargs.items() if k in static_argnames))
    dyn_args = tuple(a for i, a in enumerate(args) if i not in nums)
    dyn_kwargs = {k: v for k, v in kwargs.items() if k not in static_argnames}
    return statics, dyn_args, dyn_kwargs


def _link_statics(fun, static_argnums, static_argnames):
    """``static_argnums`` and ``static_argnames`` completed from each other through
    ``fun``'s signature, as JAX does: a static parameter is static whether it is passed by
    position or by name."""
    nums = set(static_argnums)
    names = set(static_argnames)
    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        return tuple(sorted(nums)), tuple(sorted(names))
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    for i, p in enumerate(positional):
        if p.name in names:
            nums.add(i)
        if (i in nums or i - len(positional) in nums) and p.kind == p.POSITIONAL_OR_KEYWORD:
            names.add(p.name)
    return tuple(sorted(nums)), tuple(sorted(names))


def _signature(leaves):
    """The shapes and dtypes of ``leaves``: what oxla's cache of compiled programs tells
    apart."""
    arrays = [x if isinstance(x, Array) else _oxla.asarray(x) for x in leaves]
    return tuple((x.shape, str(x.dtype)) for x in arrays)


class _Outputs:
    """The output structures a jitted function's traces gave: one in nearly every program;
    when the structure depends on the arguments' shapes, one per signature (oxla compiles
    once per signature and traces no more, so the structure must be remembered)."""

    def __init__(self):
        self.only = None
        self.varies = False
        self.by_signature = {}
        # The only structure as `_oxla.plain_flatten` writes it, when it is a plain tree.
        self.plain = None

    def record(self, leaves, treedef, out):
        self.by_signature[_signature(leaves)] = treedef
        if self.only is None:
            self.only = treedef
            flat = _oxla.plain_flatten(out)
            self.plain = flat[0] if flat is not None else None
        elif treedef != self.only:
            self.varies = True
            self.plain = None

    def structure(self, leaves):
        return self.by_signature[_signature(leaves)] if self.varies else self.only


class _Jitted:
    """A function compiled by :func:`jit`: one oxla program per argument structure and
    static arguments (and, inside oxla, per shapes and dtypes)."""

    def __init__(self, fun, static_argnums, static_argnames):
        self._fun = fun
        self._static_argnums, self._static_argnames = _link_statics(
            fun, static_argnums, static_argnames)
        self._cache = {}
        # Calls whose arguments are plain trees (tuples, lists, string-keyed dicts, None,
        # arrays), by their structure as `_oxla.plain_flatten` writes it: they flatten and
        # rebuild in Rust, without Python's tree_util (dispatch's cost, and a microsecond a
        # leaf).
        self._plain = {} if not (self._static_argnums or self._static_argnames) else None
        functools.update_wrapper(self, fun)

    def __get__(self, obj, objtype=None):
        # A jitted method binds its instance, as a function does.
        return self if obj is None else functools.partial(self, obj)

    def _entry(self, args, kwargs):
        statics, dyn_args, dyn_kwargs = _static_key(
            args, kwargs, self._static_argnums, self._static_argnames)
        leaves, treedef = tree_flatten((dyn_args, dyn_kwargs))
        key = (treedef, statics)
        entry = self._cache.get(key)
        if entry is None:
            outs = _Outputs()
            fun = self._fun
            n = len(args)
            static_pos = {i: v for i, v in statics if isinstance(i, int)}
            static_kw = {k: v for k, v in statics if isinstance(k, str)}

            def flat(leaf_list):
                dyn, kw = tree_unflatten(treedef, leaf_list)
                it = iter(dyn)
                full = [static_pos[i] if i in static_pos else next(it) for i in range(n)]
                out = fun(*full, **kw, **static_kw)
                out_leaves, out_def = tree_flatten(out)
                outs.record(leaf_list, out_def, out)
                return out_leaves

            entry = (_oxla.Jitted(flat), outs)
            self._cache[key] = entry
        return entry, leaves

    def __call__(self, *args, **kwargs):
        if JIT_DISABLED[0]:
            return self._fun(*args, **kwargs)
        flat = None if self._plain is None or kwargs else _oxla.plain_flatten(args)
        if flat is not None:
            entry = self._plain.get(flat[0])
            if entry is not None:
                jitted, outs = entry
                out = jitted(flat[1])
                if outs.plain is not None:
                    return out[0] if outs.plain == "L" else _oxla.plain_unflatten(outs.plain, out)
                return tree_unflatten(outs.structure(flat[1]), out)
        entry, leaves = self._entry(args, kwargs)
        if flat is not None:
            self._plain[flat[0]] = entry
        jitted, outs = entry
        out = jitted(leaves)
        return tree_unflatten(outs.structure(leaves), out)

    def lower(self, *args, **kwargs):
        """The function traced for arguments like ``args``; ``.compile()`` compiles it."""
        (jitted, outs), leaves = self._entry(args, kwargs)
        jitted.lowered_text(leaves)
        return Lowered(jitted, leaves, outs.structure(leaves))


def jit(fun=None, *, static_argnums=None, static_argnames=None):
    """``fun`` compiled by oxla: traced once per argument structure, shapes and dtypes,
    simplified, fused and planned; later calls run the compiled program."""
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums,
                                 static_argnames=static_argnames)
    if static_argnums is None:
        static_argnums = ()
    elif isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if static_argnames is None:
        static_argnames = ()
    elif isinstance(static_argnames, str):
        static_argnames = (static_argnames,)
    return _Jitted(fun, static_argnums, static_argnames)


def _argnums(argnums, nargs):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for i in nums:
        if not -nargs <= i < nargs:
            raise ValueError(
                f"argnums {argnums} out of range for a function of {nargs} positional arguments")
    return tuple(i % nargs for i in nums)


def value_and_grad(fun, argnums=0, has_aux=False):
    """``fun``'s value and its gradient with respect to the arguments ``argnums`` (an int,
    or a tuple giving a tuple of gradients); ``has_aux``: ``fun`` returns ``(value, aux)``."""

    @functools.wraps(fun)
    def vg(*args, **kwargs):
        nums = _argnums(argnums, len(args))
        diff = tuple(args[i] for i in nums)
        rest = tuple(None if i in nums else a for i, a in enumerate(args))
        diff_leaves, diff_def = tree_flatten(diff)
        rest_leaves, rest_def = tree_flatten((rest, kwargs))
        n = len(diff_leaves)
        box = {}

        def flat(leaves):
            d = tree_unflatten(diff_def, leaves[:n])
            r, kw = tree_unflatten(rest_def, leaves[n:])
            full = list(r)
            for i, x in zip(nums, d):
                full[i] = x
            out = fun(*full, **kw)
            if has_aux:
                if not (isinstance(out, (tuple, list)) and len(out) == 2):
                    raise TypeError(
                        "value_and_grad with has_aux=True requires the function to return "
                        f"a pair (value, aux), got {type(out).__name__}")
                out, aux = out
            else:
                aux = None
            aux_leaves, box["aux"] = tree_flatten(aux)
            return [out] + aux_leaves

        value, aux, grads = _oxla.value_and_grad(flat, diff_leaves, rest_leaves)
        g = tree_unflatten(diff_def, grads)
        g = g[0] if isinstance(argnums, int) else g
        if has_aux:
            return (value, tree_unflatten(box["aux"], aux)), g
        return value, g

    return vg


def grad(fun, argnums=0, has_aux=False):
    """The gradient of scalar-valued ``fun`` with respect to the arguments ``argnums``."""
    vg = value_and_grad(fun, argnums, has_aux)

    @functools.wraps(fun)
    def g(*args, **kwargs):
        if has_aux:
            (_, aux), grads = vg(*args, **kwargs)
            return grads, aux
        return vg(*args, **kwargs)[1]

    return g


def jvp(fun, primals, tangents):
    """``(fun(*primals), the derivative of fun at primals along tangents)``."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp primal and tangent arguments must be tuples or lists")
    p_leaves, p_def = tree_flatten((tuple(primals), {}))
    t_leaves, t_def = tree_flatten((tuple(tangents), {}))
    if p_def != t_def:
        raise TypeError(f"primal and tangent arguments to jvp must have the same tree "
                        f"structure; primals have {p_def} and tangents have {t_def}")
    box = {}
    out, dout = _oxla.jvp(_flat(fun, p_def, box), p_leaves, t_leaves)
    return tree_unflatten(box["out"], out), tree_unflatten(box["out"], dout)


def _split_aux(out):
    """``(value, aux)`` from a function's output, as ``has_aux`` asks of it."""
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("a function transformed with has_aux=True must return a pair "
                        f"(output, aux), got {type(out).__name__}")
    return out[0], out[1]


def vjp(fun, *primals, has_aux=False):
    """``(fun(*primals), vjp_fun)``: ``vjp_fun(cotangent)`` is the tuple of cotangents of
    the primals. ``has_aux``: ``fun`` returns ``(output, aux)``, and the result is
    ``(output, vjp_fun, aux)``."""
    p_leaves, p_def = tree_flatten((primals, {}))
    box = {}

    def call(args, kwargs):
        out = fun(*args, **kwargs)
        if has_aux:
            out, aux = _split_aux(out)
            # The aux leaves are traced as outputs too; their cotangents are zero.
            value_leaves, box["value"] = tree_flatten(out)
            box["n"] = len(value_leaves)
            box["aux"] = tree_flatten(aux)[1]
            return (out, aux)
        return out

    out, pullback = _oxla.vjp(_flat(fun, p_def, box, call), p_leaves)
    n = box["n"] if has_aux else len(out)
    out_def = box["value"] if has_aux else box["out"]
    out, aux = out[:n], out[n:]
    prim_def = tree_flatten(primals)[1]

    def vjp_fun(cotangent):
        ct_leaves, ct_def = tree_flatten(cotangent)
        if ct_def != out_def:
            raise ValueError(f"unexpected tree structure of argument to vjp function: got "
                             f"{ct_def}, but expected to match {out_def}")
        zeros = [_oxla.zeros_like(a) for a in aux]
        return tree_unflatten(prim_def, pullback(ct_leaves + zeros))

    if has_aux:
        return tree_unflatten(out_def, out), vjp_fun, tree_unflatten(box["aux"], aux)
    return tree_unflatten(out_def, out), vjp_fun


def block_until_ready(x):
    """``x``, once every array in it is computed (oxla computes eagerly: at once)."""
    return x

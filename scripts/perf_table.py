# The runner's JSON (`oxla-bench all --json FILE`) as the Markdown table of
# docs/performance.md: python3 scripts/perf_table.py FILE
import json
import sys


def secs(v):
    if v is None:
        return "-"
    if v >= 1:
        return f"{v:.2f} s"
    if v >= 1e-3:
        return f"{v * 1e3:.1f} ms"
    return f"{v * 1e6:.2f} µs"


def mib(v):
    return "-" if v is None else f"{v} MiB"


def main(path):
    with open(path) as f:
        data = json.load(f)
    print(
        f"Machine: {data['flops_per_s'] / 1e9:.0f} GFLOP/s (`f32` product), "
        f"{data['bytes_per_s'] / 1e9:.1f} GB/s (copy), measured at start-up.\n"
    )
    head = ["workload", "oxla", "JAX", "ratio", "target", "runs", "oxla RSS", "JAX RSS",
            "agree", "limit", "share of limit"]
    print("| " + " | ".join(head) + " |")
    align = ["---", "--:", "--:", "--:", "---", "--:", "--:", "--:", "---", "--:", "--:"]
    print("|" + "|".join(align) + "|")
    for r in data["rows"]:
        limit = r["limit_s"]
        share = "-" if limit is None else f"{100 * limit / r['oxla_s']:.0f}%"
        agree = {True: "yes", False: "NO", None: "-"}[r["agree"]]
        cells = [r["workload"], secs(r["oxla_s"]), secs(r["jax_s"]), f"{r['ratio']:.3f}",
                 f"<= {r['target']}", str(r["runs"]), mib(r["oxla_rss_mib"]),
                 mib(r["jax_rss_mib"]), agree, secs(limit), share]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])

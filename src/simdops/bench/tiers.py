"""The tier check: a tier's own kernel must not be slower than the kernel its parent tier
runs for the same entry and dtype (the one it overrides).

Tiers inherit every entry they leave empty, so a kernel a tier provides exists only to be
faster; one that measures slower should be deleted (the tier then inherits). The check reads
a finished report: for every case measured under a tier and its parent in the same run
(`--isa all`, or both named), where the tier's table uses the tier's own kernel, it compares
elements/s (the best of the interleaved rounds, as every ratio of the report) and flags the
entry when the tier reaches less than 1 - TOLERANCE of its parent."""
import simdops

TOLERANCE = 0.03    # the machine's noise between interleaved rounds of one run


def slot_dtype(case):
    """The dtype naming the kernel slot a case runs (C's rule: _core.kernel_slot_dtype)."""
    return simdops._core.kernel_slot_dtype(case["kernel_entry"], case["dtype"],
                                           case["out_dtype"])


def _simdops_result(case, isa):
    for r in case["results"].values():
        if r["kind"] == "simdops" and r["isa"] == isa and r["threads"] in (None, 1):
            return r
    return None


def check(report, parents=None):
    """Rows {case, entry, tier, parent, ratio, status} for every overriding kernel measured
    next to its parent; status "OK" or "SLOWER". Empty when fewer than two related tiers
    were measured."""
    if parents is None:
        parents = simdops._core.tier_parents()
    origins = report["machine"]["kernel_origins"]
    rows = []
    for case in report["cases"]:
        if not case["kernel_entry"]:
            continue                # not a main-table kernel (the low-bit qlow table)
        key = f"{case['kernel_entry']}/{slot_dtype(case)}"
        for tier, parent in parents.items():
            if parent is None or origins.get(tier, {}).get(key) != tier:
                continue            # the tier runs an inherited kernel: nothing to check
            mine, theirs = _simdops_result(case, tier), _simdops_result(case, parent)
            if mine is None or theirs is None:
                continue
            ratio = mine["elements_per_s"] / theirs["elements_per_s"]
            rows.append({"case": case["label"], "entry": key, "tier": tier, "parent": parent,
                         "parent_kernel": origins.get(parent, {}).get(key),
                         "ratio": ratio,
                         "status": "OK" if ratio >= 1 - TOLERANCE else "SLOWER"})
    return rows


def format_text(rows):
    """The check as text lines (a heading and one line per row), or [] without rows."""
    if not rows:
        return []
    width = max(len(r["case"]) for r in rows)
    slower = sum(r["status"] == "SLOWER" for r in rows)
    lines = [f"tier check: each tier's own kernel vs its parent's (elements/s; SLOWER below "
             f"{1 - TOLERANCE:.2f}): {len(rows)} kernels, {slower} slower"]
    for r in rows:
        lines.append(f"  {r['case']:<{width}}  {r['tier']:>6} vs {r['parent']:<6} "
                     f"({r['parent_kernel']}'s kernel)  {r['ratio']:.3f}  {r['status']}")
    return lines

"""selftest covers every kernel entry: a table entry with no selftest case (a new op whose
selftest line was forgotten) fails here, in the test command, not only in
`python -m simdops selftest`."""
from simdops import selftest


def test_every_kernel_entry_has_a_selftest_case():
    missing = selftest.uncovered_entries(selftest.cases())
    assert not missing, "no selftest case runs kernel entries: " + ", ".join(
        f"{e}[{d}]" for e, d in missing)


def test_a_dropped_case_is_named():
    cases = selftest.cases()
    dropped = [c for c in cases if "shrink" not in c[0]]
    missing = selftest.uncovered_entries(dropped)
    assert any(e == "shrink" for e, _ in missing)

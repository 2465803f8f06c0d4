"""`bench --markdown` replaces exactly the block between the bench markers of a page."""
import pytest

from simdops.bench import report as bench_report


def test_a_marker_quoted_in_prose_is_not_a_marker():
    quoted = f"Regenerating replaces the part from `{bench_report.BEGIN}` on.\n"
    text = (f"# P\n\n{quoted}\nprose kept\n\n{bench_report.BEGIN}\nold\n{bench_report.END}\n"
            "\ntail kept\n")
    spliced = bench_report.splice_markdown(text, f"{bench_report.BEGIN}\nnew\n{bench_report.END}\n")
    assert spliced == (f"# P\n\n{quoted}\nprose kept\n\n{bench_report.BEGIN}\nnew\n"
                       f"{bench_report.END}\n\ntail kept\n")


def test_a_begin_marker_without_an_end_is_refused():
    text = f"# P\n\n{bench_report.BEGIN}\nold\n\nprose after\n"
    with pytest.raises(ValueError, match="no <!-- bench:end --> line follows it"):
        bench_report.splice_markdown(text, f"{bench_report.BEGIN}\nnew\n{bench_report.END}\n")


def test_a_page_without_markers_gets_the_section_appended():
    spliced = bench_report.splice_markdown("# P\n\nprose\n\n\n", "S\n")
    assert spliced == "# P\n\nprose\n\nS\n"

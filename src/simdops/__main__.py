"""python -m simdops info | bench | selftest"""
import sys


def info(argv):
    import numpy as np

    import simdops
    from simdops import _core

    active = simdops.isa()
    print(f"simdops {simdops.__version__} (numpy {np.__version__}, Python {sys.version.split()[0]})")
    print(f"CPU features:   {_core.cpu_features() or '(none detected)'}")
    print(f"known ISAs:     {', '.join(_core.known_isas())}")
    print(f"available ISAs: {', '.join(simdops.available_isas())}")
    print(f"active ISA:     {active}")
    print("kernels (entry, dtype: tier providing it):")
    origins = _core.kernel_origins(active)
    entries = {}
    for (entry, dtype), tier in origins.items():
        entries.setdefault(entry, []).append(f"{dtype}={tier}")
    for entry, items in entries.items():
        print(f"  {entry:16s} {' '.join(items)}")
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m simdops {info|bench|selftest} [options]"
    if not argv or argv[0] in ("-h", "--help"):
        print(usage)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "info":
        return info(rest)
    if cmd == "selftest":
        from simdops import selftest
        return selftest.main(rest)
    if cmd == "bench":
        from simdops import bench
        return bench.main(rest)
    print(f"unknown command {cmd!r}\n{usage}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

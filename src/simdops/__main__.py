"""python -m simdops {info,selftest,bench}: the command line (also the `simdops` script).

Each subcommand's options belong to its module: a module that provides
`add_arguments(parser)` and `run(args)` gets its options parsed here;
otherwise the rest of the command line is handed to its `main(argv)`, which
prints its own --help.
"""
import argparse
import importlib
import os
import sys

# subcommand -> (module, one-line help); "info" lives in this file
_DELEGATED = {
    "selftest": ("simdops.selftest", "check every available ISA against the scalar reference"),
    "bench": ("simdops.bench", "throughput table per op, dtype and size (numpy, torch, copy)"),
}


def info(args):
    """Print the version, CPU features, ISAs and the kernel tier per op and dtype."""
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


def _add_selftest_arguments(parser):
    parser.add_argument("--quick", action="store_true",
                        help="fewer lengths (0-39 and a few around vector widths); seconds")


def _run_selftest_main(module, args):
    return module.main(["--quick"] if args.quick else [])


def program_name(argv0=None):
    """The command as the user typed it, for usage lines: "simdops" from the console
    script, else "python -m simdops" (argparse alone would say "__main__.py")."""
    path = sys.argv[0] if argv0 is None else argv0
    name = path.replace("\\", "/").rsplit("/", 1)[-1]     # a Windows path on any OS
    return "simdops" if os.path.splitext(name)[0] == "simdops" else "python -m simdops"


def build_parser(prog=None):
    parser = argparse.ArgumentParser(
        prog=prog or program_name(),
        description="simdops: bit-exact SIMD CPU kernels (DirectML CLIP/SHRINK/HARDMAX, "
                    "ACL gemmlowp output stage).")
    parser.add_argument("--version", action="version", version=_version_text())
    sub = parser.add_subparsers(dest="command", metavar="{info,selftest,bench}", required=True)
    p = sub.add_parser("info", help="version, CPU features, active ISA, kernel per op and dtype",
                       description="Print the simdops version, the CPU features detected, the "
                                   "known / available / active ISAs and which tier provides "
                                   "each kernel.")
    p.set_defaults(handler=info)
    for name, (module_name, help_text) in _DELEGATED.items():
        module = importlib.import_module(module_name)
        if hasattr(module, "add_arguments") and hasattr(module, "run"):
            p = sub.add_parser(name, help=help_text, description=help_text)
            module.add_arguments(p)
            p.set_defaults(handler=module.run)
        elif name == "selftest":
            p = sub.add_parser(name, help=help_text, description=help_text)
            _add_selftest_arguments(p)
            p.set_defaults(handler=lambda args, m=module: _run_selftest_main(m, args))
        else:
            # the module parses its own options (and prints its own --help)
            p = sub.add_parser(name, help=help_text, add_help=False, prefix_chars="\0")
            p.add_argument("argv", nargs=argparse.REMAINDER)
            p.set_defaults(handler=lambda args, m=module: m.main(list(args.argv)))
    return parser


def _version_text():
    from simdops._version import __version__
    return f"simdops {__version__}"


def main(argv=None):
    """Run the command line; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # --help, --version or a usage error
        return e.code if isinstance(e.code, int) else 2
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())

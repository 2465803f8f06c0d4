"""Time-boxed property fuzzing of simdops (run by ci/fuzz.sh, not by pytest).

Properties, each run under every available ISA tier (simdops.use_isa) and, where
simdops has them, several thread counts:

- array ops (clip, shrink, hardmax, requant) on drawn dtypes, shapes (0-size
  included), byte strides (negative, zero, not a multiple of the item size),
  misaligned buffers, axes and extreme parameters, with `out` absent, a fresh
  strided view, x itself (in place) or a view overlapping x: the first tier
  must equal tests/reference.py (NaN-ness only for NaNs), every other tier
  must equal the first bit for bit;
- garbage: wrong types and values for every argument of the array API and of
  the dml / acl descriptors: only TypeError / ValueError (dml's
  InvalidArgumentError is one) may come out, never another exception, a
  crash or a hang (a watchdog kills a stuck example and prints its stack).

Usage: python ci/fuzz_simdops.py [--minutes M] [--seed S] [--only NAME]
Prints one line per round and a closing 'fuzz: N passed, N failed' line.
"""
import argparse
import faulthandler
import os
import resource
import sys
import time
import traceback

from hypothesis import HealthCheck, Phase, seed, settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fuzz.common import ISAS, OUTCOMES, THREADS  # noqa: E402
from fuzz.garbage import (prop_endless_axes, prop_garbage_acl, prop_garbage_array_api,  # noqa: E402
                          prop_garbage_dml)
from fuzz.ops import (prop_big_tiers_agree, prop_clip, prop_dequantize_linear,  # noqa: E402
                      prop_hardmax, prop_quantize_linear, prop_requant, prop_shrink)
from fuzz.ops_lowbit import prop_qdq_lowbit  # noqa: E402
from fuzz.ops_requant_chain import prop_requant_chain  # noqa: E402
from fuzz.ops_requant_families import prop_requant_families  # noqa: E402
from fuzz.ops_qbinary import prop_qbinary  # noqa: E402

WATCHDOG_SECONDS = 120

PROPERTIES = {
    "clip": prop_clip, "shrink": prop_shrink, "hardmax": prop_hardmax, "requant": prop_requant,
    "big_tiers_agree": prop_big_tiers_agree,
    "quantize_linear": prop_quantize_linear, "dequantize_linear": prop_dequantize_linear,
    "requant_families": prop_requant_families, "requant_chain": prop_requant_chain,
    "qdq_lowbit": prop_qdq_lowbit,
    "garbage_array_api": prop_garbage_array_api, "garbage_dml": prop_garbage_dml,
    "garbage_acl": prop_garbage_acl, "qbinary": prop_qbinary,
}
FIXED = {"endless_axes": prop_endless_axes}


# -------------------------------------------------------------------- driver

def run_once(fn, round_seed):
    seed(round_seed)(fn)()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=None, help="first round's seed (reproduce)")
    parser.add_argument("--only", action="append", choices=sorted(PROPERTIES) + sorted(FIXED))
    parser.add_argument("--examples", type=int, default=40, help="examples per property per round")
    parser.add_argument("--memory-gb", type=float, default=6.0,
                        help="address-space limit: a runaway allocation (an endless iterator "
                             "read into a tuple) becomes a MemoryError, a failure, not an OOM; "
                             "0: no limit")
    args = parser.parse_args(argv)
    if args.memory_gb > 0:  # 0: no limit (AddressSanitizer reserves terabytes of shadow)
        limit = int(args.memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    faulthandler.enable()
    configured = settings(max_examples=args.examples, deadline=None, database=None,
                          phases=(Phase.generate, Phase.target, Phase.shrink),
                          suppress_health_check=list(HealthCheck), print_blob=True)
    properties = {name: configured(fn) for name, fn in PROPERTIES.items()}
    names = args.only or list(PROPERTIES) + list(FIXED)
    deadline = time.monotonic() + args.minutes * 60
    base_seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"fuzz: ISAs {', '.join(ISAS)}; threads {THREADS}; {args.minutes} min; "
          f"seed {base_seed} (rerun with --seed {base_seed})", flush=True)
    passed, failed, examples = {}, {}, {}
    round_no = 0
    while True:
        for name in names:
            if name in failed or (round_no and time.monotonic() >= deadline):
                continue
            round_seed = base_seed + round_no
            faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
            try:
                if name in FIXED:
                    FIXED[name]()
                else:
                    run_once(properties[name], round_seed)
            except Exception:  # a property failed: hypothesis printed the shrunk example
                failed[name] = (round_seed, traceback.format_exc())
                print(f"fuzz: FAIL {name} (round seed {round_seed}; rerun with "
                      f"--only {name} --seed {round_seed})\n{failed[name][1]}", flush=True)
            else:
                passed[name] = passed.get(name, 0) + 1
                examples[name] = examples.get(name, 0) + (1 if name in FIXED else args.examples)
            finally:
                faulthandler.cancel_dump_traceback_later()
        round_no += 1
        print(f"fuzz: round {round_no} done; " + ", ".join(
            f"{n}={examples.get(n, 0)}" for n in names if n not in failed), flush=True)
        if time.monotonic() >= deadline or len(failed) == len(names):
            break
    print("fuzz: outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(OUTCOMES.items())))
    ok = [n for n in names if n not in failed]
    print(f"fuzz: properties passing: {', '.join(ok) or '-'}; failing: {', '.join(failed) or '-'}")
    print(f"fuzz: {len(ok)} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""What every fuzz property shares: the tiers and thread counts to run, the
documented exception types, outcome counters, and the garbage strategies."""
import collections
import itertools
import os
import signal
import sys

import numpy as np
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tests"))

import simdops  # noqa: E402

ISAS = simdops.available_isas()
THREADS = (1, 3) if hasattr(simdops, "set_num_threads") else (None,)
DOCUMENTED = (TypeError, ValueError)  # dml.InvalidArgumentError subclasses ValueError
OUTCOMES = collections.Counter()  # how often examples got checked results vs errors


def call_name(call):
    return call.__code__.co_names[1] if len(call.__code__.co_names) > 1 else "op"


def garbage():
    """Values of every wrong kind a caller might pass."""
    return st.one_of(
        st.none(), st.booleans(), st.integers(-(2 ** 80), 2 ** 80), st.floats(),
        st.complex_numbers(), st.text(max_size=5), st.binary(max_size=9),
        st.lists(st.one_of(st.integers(-(2 ** 40), 2 ** 40), st.floats(), st.none()),
                 max_size=5).map(lambda v: tuple(v) if len(v) % 2 else v),
        st.sampled_from([object(), {}, {1: 2}, set(), itertools.count(), iter([1, 2, 3]),
                         (i for i in range(10 ** 9)), np.float32("nan"), np.int64(-1), np.bool_(True),
                         np.zeros(3, np.complex64), np.zeros(3, bool), np.zeros(3, ">f4"),
                         np.zeros(3, object), np.zeros((2, 2), np.int32), slice(1), Ellipsis,
                         float("inf"), -float("inf"), 2 ** 64, -(2 ** 63) - 1, 2 ** 2000]))


def maybe(strategy):
    """Mostly the given strategy, a quarter of the time garbage (one_of would
    weigh each of garbage's many branches like the one valid strategy)."""
    return st.integers(0, 3).flatmap(lambda i: strategy if i else garbage())


class Hang(Exception):
    """A call ran past CALL_SECONDS (e.g. reading an endless iterator)."""


CALL_SECONDS = 2.0


def _on_alarm(signum, frame):
    raise Hang(f"call did not return within {CALL_SECONDS} s")


def only_documented(fn, *args, **kwargs):
    """fn(...) or None when it raised a documented error; anything else
    (another exception, or running past CALL_SECONDS) propagates."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        result = fn(*args, **kwargs)
        OUTCOMES["garbage: returned"] += 1
        return result
    except DOCUMENTED:
        OUTCOMES["garbage: documented error"] += 1
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def mostly(valid, wild):
    """The valid strategy 80% of the time, otherwise a wild or garbage value."""
    return st.integers(0, 9).flatmap(
        lambda i: valid if i < 8 else wild if i == 8 else garbage())

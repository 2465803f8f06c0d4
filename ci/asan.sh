#!/usr/bin/env bash
# The Python extension built with AddressSanitizer and UndefinedBehaviorSanitizer
# and the pytest suite run against it (ci/sanitize.sh covers the C harness; this
# covers the Cython layer, the buffer handling and the strided drivers as the
# tests drive them).
#
#   ci/asan.sh [python]      python: the interpreter to build the venv from (default python3)
#
# Builds in its own directory ($ASAN_DIR, default a fresh temp dir): a copy of
# the source tree and a venv, so the user's build/, in-place .so and venvs are
# never touched. Only the extension is instrumented, so libasan is preloaded
# into the (uninstrumented) interpreter; CPython's own allocations look like
# leaks to LeakSanitizer, so leak detection is off. Any ASan or UBSan report
# stops the run (-fno-sanitize-recover=all, halt_on_error=1) and fails it.
# Extra pytest arguments: ASAN_PYTEST_ARGS (default: the whole suite, -x);
# then ci/fuzz_simdops.py's array-op properties for ASAN_FUZZ_MINUTES (default 1; 0 skips).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${1:-python3}
OUT=${ASAN_DIR:-$(mktemp -d -t simdops-asan.XXXXXX)}
LOG=$OUT/pytest.log
CC=${CC:-gcc}
mkdir -p "$OUT"
echo "asan.sh: building in $OUT"

fail() {
    echo "asan.sh: FAILED: $*"
    exit 1
}

# 1. A private copy of the sources (tracked and untracked-but-not-ignored files).
rm -rf "$OUT/tree"
mkdir -p "$OUT/tree"
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard) |
        (cd "$ROOT" && xargs -0 cp --parents -t "$OUT/tree" 2>/dev/null) || true
else
    cp -r "$ROOT/." "$OUT/tree"
    rm -rf "$OUT/tree/build" "$OUT"/tree/src/simdops/*.so
fi
[ -f "$OUT/tree/setup.py" ] || fail "could not copy the source tree"

# 2. A private venv with the build and test requirements.
if [ ! -x "$OUT/venv/bin/python" ]; then
    "$PY" -m venv "$OUT/venv"
fi
VPY=$OUT/venv/bin/python
"$VPY" -m pip install -q --disable-pip-version-check numpy Cython "setuptools>=77" wheel pytest hypothesis \
    || fail "pip install of the build/test requirements"

# 3. The instrumented extension, in place in the copy.
SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
(
    cd "$OUT/tree"
    CC=$CC CFLAGS="$SAN_FLAGS" LDFLAGS="-fsanitize=address,undefined" \
        "$VPY" setup.py -q build_ext --inplace >"$OUT/build.log" 2>&1
) || { tail -40 "$OUT/build.log"; fail "build of the instrumented extension"; }
SO=$(ls "$OUT"/tree/src/simdops/_core*.so)
SYMBOLS=$(nm -D "$SO")  # not piped into grep -q: under pipefail nm's SIGPIPE would fail it
grep -q __asan_ <<<"$SYMBOLS" || fail "$SO is not instrumented (no __asan_ symbols)"
grep -q __ubsan_ <<<"$SYMBOLS" || fail "$SO is not instrumented (no __ubsan_ symbols)"

LIBASAN=$("$CC" -print-file-name=libasan.so)
[ -f "$LIBASAN" ] || fail "libasan.so not found (gcc -print-file-name gave $LIBASAN)"

# 4. The test suite against the instrumented build.
export ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PYTHONPATH=$OUT/tree/src
# the instrumented build is this venv's simdops, also for the subprocesses that
# build examples/ against "the installed simdops" (they drop PYTHONPATH)
"$VPY" -c "import site, sys; open(site.getsitepackages()[0] + '/simdops-asan.pth', 'w').write(sys.argv[1] + '\n')" \
    "$OUT/tree/src"
export PYTHONMALLOC=malloc  # let ASan see the buffers CPython and numpy hand out
rc=0
(
    cd "$OUT/tree"
    LD_PRELOAD=$LIBASAN "$VPY" -c \
        "import simdops, sys; assert simdops.__file__.startswith('$OUT'), simdops.__file__; print('asan.sh: simdops from', simdops.__file__, 'ISAs', simdops.available_isas())"
    # shellcheck disable=SC2086
    LD_PRELOAD=$LIBASAN "$VPY" -m pytest -q -p no:cacheprovider -x ${ASAN_PYTEST_ARGS:-tests}
) >"$LOG" 2>&1 || rc=$?
tail -n 25 "$LOG"
summary=$(grep -E '^[0-9]+ (passed|failed)' "$LOG" | tail -n 1 || true)

# 5. A short fuzz of the array ops (drawn strides, misalignment, overlapping
#    out) under the sanitizers. No address-space limit is possible under ASan,
#    so only the properties that allocate boundedly run here.
FUZZ_MINUTES=${ASAN_FUZZ_MINUTES:-1}
if [ "$rc" = 0 ] && [ "$FUZZ_MINUTES" != 0 ]; then
    (
        cd "$OUT"
        ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1 LD_PRELOAD=$LIBASAN \
            "$VPY" "$OUT/tree/ci/fuzz_simdops.py" --minutes "$FUZZ_MINUTES" --memory-gb 0 \
            --only clip --only shrink --only hardmax --only requant --only big_tiers_agree
    ) >>"$LOG" 2>&1 || rc=$?
    grep -E '^fuzz: ' "$LOG" | tail -n 3
fi

if grep -qE 'runtime error:|ERROR: AddressSanitizer|UndefinedBehaviorSanitizer' "$LOG"; then
    echo "asan.sh: sanitizer reports:"
    grep -E -A 25 'runtime error:|ERROR: AddressSanitizer' "$LOG" | head -80
    fail "sanitizer report (full log: $LOG)"
fi
[ "$rc" = 0 ] || fail "pytest or fuzz exit $rc${summary:+ (pytest: $summary)} (full log: $LOG)"
echo "asan.sh: OK: pytest ${summary:-(no summary)}; fuzz ${FUZZ_MINUTES} min; no sanitizer reports"

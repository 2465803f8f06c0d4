"""Property fuzzing of simdops; run through ci/fuzz.sh (ci/fuzz_simdops.py)."""

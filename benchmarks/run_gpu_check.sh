#!/usr/bin/env bash
# The GPU check lives in its study, benchmarks/gpu/; this path is kept because the team's
# brief names it. Same arguments, same environment (OUT, PYTHON, GPU_CHECK_TIMEOUT).
exec bash "$(dirname "$0")/gpu/run_gpu_check.sh" "$@"

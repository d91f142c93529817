#!/usr/bin/env bash
# The GPU check (benchmarks/gpu/gpu_check.py) on the device machine, which has torch, scikit-learn,
# scipy and numpy but no network: sktdi's other runtime dependencies (skorch, safetensors,
# tabulate, tqdm) come from the wheels in .wheels/ (git-ignored; carry it to the machine), and
# sktdi itself from this checkout through PYTHONPATH (no build step, no setuptools needed).
#
#   pip download skorch safetensors tabulate tqdm --no-deps -d .wheels   # once, with network
#   OUT=/some/folder bash benchmarks/gpu/run_gpu_check.sh                     # on the device
#
# Writes $OUT/gpu_check.json (written after every section, so a run cut short keeps what it
# measured) and $OUT/gpu_check.log. Extra arguments go to gpu_check.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-benchmarks/gpu/results}"
mkdir -p "$OUT"
PYTHON="${PYTHON:-$(command -v python || command -v python3)}"

"$PYTHON" - <<'PY'
import numpy, scipy, sklearn, torch
print("python deps:", "numpy", numpy.__version__, "scipy", scipy.__version__,
      "scikit-learn", sklearn.__version__, "torch", torch.__version__,
      "cuda", torch.version.cuda, "available", torch.cuda.is_available())
PY

if ! "$PYTHON" -m pip install --quiet --no-index --no-deps --find-links .wheels \
        skorch safetensors tabulate tqdm; then
    # no pip, or a system Python that refuses installs (PEP 668): a wheel is a zip archive
    # whose contents import as they are, so unpack them onto PYTHONPATH
    site="$(mktemp -d)"
    for wheel in .wheels/*.whl; do "$PYTHON" -m zipfile -e "$wheel" "$site"; done
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
    echo "dependencies unpacked into $site"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

# the check's own budget is under 5 minutes; the timeout keeps a hung CUDA call from using
# the whole device lease
limit=()
if command -v timeout > /dev/null; then limit=(timeout "${GPU_CHECK_TIMEOUT:-540}"); fi
"${limit[@]}" "$PYTHON" benchmarks/gpu/gpu_check.py --device cuda --out "$OUT/gpu_check.json" "$@" \
    2>&1 | tee "$OUT/gpu_check.log"

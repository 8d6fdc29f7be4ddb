"""Run a command as if on another machine: another OpenBLAS kernel, NumPy's SIMD loops
off.

    python tests/other_machine.py python -m pytest ...

``make test`` runs the notebooks (nbval) and the Python tests twice: as this machine
runs them, and through this script, which sets

- ``OPENBLAS_CORETYPE`` to a kernel that every CPU of this architecture can run
  (``Prescott`` on x86-64, ``ARMV8`` on 64-bit ARM), unless the machine already uses
  it (then ``Nehalem``, which every CPU that runs NumPy 2's x86-64-v2 baseline runs, or
  ``CortexA57``), and
- ``NPY_DISABLE_CPU_FEATURES`` to every SIMD extension that NumPy dispatches to on
  this CPU (AVX2 and AVX-512 families on x86-64, ASIMD extensions on ARM), so NumPy's
  ufuncs run their baseline loops.

Each setting is checked in a child process before the command runs: the kernel must be
the one asked for (threadpoolctl), the features off. A setting this machine does not
offer (NumPy built on Accelerate on a Mac has no OpenBLAS kernel to choose; a CPU
without dispatched features has nothing to switch off) is named as skipped; if neither
is available, the run is skipped as a whole and says so. Nothing is skipped silently.
The README ("The same on every machine") says which configurations the book is tested
in.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

# architecture -> kernels every CPU of it runs, the first one the machine does not use
KERNELS = {
    "x86_64": ("Prescott", "Nehalem"),
    "AMD64": ("Prescott", "Nehalem"),
    "aarch64": ("ARMV8", "CortexA57"),
    "arm64": ("ARMV8", "CortexA57"),
}

PROBE = """
import json
import numpy
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
from threadpoolctl import threadpool_info
blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({
    "blas": [(i["internal_api"], i.get("architecture")) for i in blas],
    "dispatched_here": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
}))
"""


def probe(env: dict[str, str]) -> dict:
    """What a fresh interpreter with ``env`` sees: BLAS libraries and their kernels,
    NumPy's features."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def settings() -> tuple[dict[str, str], list[str]]:
    """The environment of the other configuration, and one line for each setting (used
    or skipped)."""
    native = probe(
        dict(os.environ)
    )  # as this machine runs (a kernel it sets itself included)
    env, lines = dict(os.environ), []
    openblas = [arch for api, arch in native["blas"] if api == "openblas"]
    in_use = {
        name.lower()
        for name in openblas[:1] + [os.environ.get("OPENBLAS_CORETYPE", "")]
    }
    in_use |= (
        {"prescott"} if "katmai" in in_use else set()
    )  # OpenBLAS reports Prescott as Katmai
    kernels = [
        k for k in KERNELS.get(platform.machine(), ()) if k.lower() not in in_use
    ]
    if openblas and kernels:
        env["OPENBLAS_CORETYPE"] = kernels[0]
        lines.append(
            f"OPENBLAS_CORETYPE={kernels[0]} "
            f"(this machine's OpenBLAS kernel: {openblas[0]})"
        )
    else:
        why = (
            f"NumPy's BLAS here is {native['blas'] or 'unknown'}, not OpenBLAS"
            if not openblas
            else f"no other kernel known for {platform.machine()}"
        )
        lines.append(f"skipped: another OpenBLAS kernel ({why})")
    if native["dispatched_here"]:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(native["dispatched_here"])
        lines.append(
            f"NPY_DISABLE_CPU_FEATURES={env['NPY_DISABLE_CPU_FEATURES']} "
            "(NumPy's SIMD loops off)"
        )
    else:
        lines.append(
            "skipped: NumPy's SIMD loops off "
            "(NumPy dispatches to no extension on this CPU)"
        )
    return env, lines


def check(env: dict[str, str]) -> None:
    """Fail unless the settings took effect in a fresh interpreter."""
    seen = probe(env)
    if env.get("OPENBLAS_CORETYPE") != os.environ.get("OPENBLAS_CORETYPE"):
        kernels = [arch for api, arch in seen["blas"] if api == "openblas"]
        native = [
            arch for api, arch in probe(dict(os.environ))["blas"] if api == "openblas"
        ]
        if kernels == native:
            sys.exit(
                f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']} "
                f"did not change OpenBLAS's kernel ({kernels})"
            )
    if "NPY_DISABLE_CPU_FEATURES" in env and seen["dispatched_here"]:
        sys.exit(f"NPY_DISABLE_CPU_FEATURES left {seen['dispatched_here']} on")


def main(argv: list[str]) -> int:
    if not argv:
        sys.exit(__doc__)
    env, lines = settings()
    print("Another machine's configuration:", *lines, sep="\n  ", flush=True)
    if env == dict(os.environ):
        print(
            "Skipped: this machine offers neither setting, "
            "so this run would repeat the native one.",
            flush=True,
        )
        return 0
    check(env)
    return subprocess.run(argv, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

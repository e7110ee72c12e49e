"""Finding the `kura` binary, and the `kura` command a wheel installs."""

import os
import pathlib
import shutil
import sys

BUNDLED = pathlib.Path(__file__).resolve().parent / "bin" / "kura"


def find_binary():
    """The `kura` to run: $KURA_BIN, the one this wheel carries, else `kura` on PATH."""
    from_env = os.environ.get("KURA_BIN")
    if from_env:
        return from_env
    if BUNDLED.is_file():
        return str(BUNDLED)
    on_path = shutil.which("kura")
    if on_path and pathlib.Path(on_path).resolve() != pathlib.Path(sys.argv[0]).resolve():
        return on_path
    raise FileNotFoundError(
        "no kura binary: install the kura-dynamodb wheel that carries it, set KURA_BIN, "
        "or put kura on PATH")


def main():
    """`kura ...`: runs the bundled binary in this process's place."""
    if not BUNDLED.is_file():
        sys.exit("this kura-dynamodb package carries no binary (built without one)")
    os.execv(str(BUNDLED), ["kura", *sys.argv[1:]])

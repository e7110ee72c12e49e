#!/usr/bin/env python3
"""What each way of getting Kura costs: its size, and the time from the start command to
the first 200 from GET /ready (polled every 1 ms), for the static binary, the container
image, the Python wheel's `kura` and the npm package's `npx kura`. Runs are interleaved
(one of each channel per round) so background load falls on all of them alike; the
median, min and max of the rounds are printed, with each channel's ratio to the binary.

    python3 benches/channels.py --binary target/static/kura --image kura:latest \
        --wheel target/python/kura_dynamodb-*.whl --npm target/npm/kura-dynamodb-0.1.0.tgz

Any channel left out is skipped. The test command runs it with --rounds 3 (README,
"Install", has a longer run's figures).
"""

import argparse
import glob
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ready(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as s:
            s.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            return s.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def time_to_ready(command, port, stop, cwd=None, limit=30.0):
    """Seconds from starting `command` to /ready answering 200 on `port`."""
    started = time.perf_counter()
    # A session of its own, so that stopping it reaches every process it started
    # (npx runs npm, a shell, node, then kura).
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd,
        start_new_session=True,
    )
    try:
        while time.perf_counter() - started < limit:
            if ready(port):
                return time.perf_counter() - started
            if process.poll() is not None:
                raise RuntimeError(f"{command} exited with {process.returncode}")
            time.sleep(0.001)
        raise RuntimeError(f"{command} was not ready in {limit} s")
    finally:
        stop(process)


def kill(process):
    """Stops the process and everything it started (its process group)."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        process.wait()


def channels(args, work):
    """(name, size in bytes, function(port) -> (command, stop, working directory))."""
    found = []
    if args.binary:
        size = os.path.getsize(args.binary)
        found.append(("binary", size, lambda p: ([args.binary, "serve", "--in-memory", "--port", str(p)], kill, None)))
        data = os.path.join(work, "data")

        def durable(p):
            shutil.rmtree(data, ignore_errors=True)
            return ([args.binary, "serve", "--data-dir", data, "--port", str(p)], kill, None)

        found.append(("binary, new data directory", size, durable))
    if args.image:
        size = int(subprocess.check_output(["docker", "image", "inspect", args.image, "--format", "{{.Size}}"]))
        name = f"kura-channels-{os.getpid()}"

        def image(p):
            def stop(process):
                subprocess.run(["docker", "rm", "-f", name], capture_output=True)
                kill(process)

            command = ["docker", "run", "--rm", "--name", name, "-p", f"127.0.0.1:{p}:8000", args.image, "serve", "--in-memory"]
            return (command, stop, None)

        found.append(("container image", size, image))
    if args.wheel:
        wheel = sorted(glob.glob(args.wheel))[-1]
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--quiet", "--no-index", "--disable-pip-version-check", wheel], check=True)
        kura = os.path.join(venv, "bin", "kura")
        found.append(("Python wheel (kura on PATH)", os.path.getsize(wheel), lambda p: ([kura, "serve", "--in-memory", "--port", str(p)], kill, None)))
    if args.npm:
        project = os.path.join(work, "npm")
        os.makedirs(project)
        subprocess.run(["npm", "init", "-y"], cwd=project, check=True, capture_output=True)
        subprocess.run(["npm", "install", "--offline", "--no-audit", "--no-fund", os.path.abspath(args.npm)], cwd=project, check=True, capture_output=True)
        npx = shutil.which("npx") or "npx"

        def npm(p):
            return ([npx, "--offline", "kura", "serve", "--in-memory", "--port", str(p)], kill, project)

        found.append(("npm package (npx kura)", os.path.getsize(args.npm), npm))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary")
    parser.add_argument("--image")
    parser.add_argument("--wheel")
    parser.add_argument("--npm")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        found = channels(args, work)
        times = {name: [] for name, _, _ in found}
        for _ in range(args.rounds):
            for name, _, start in found:
                port = free_port()
                command, stop, cwd = start(port)
                times[name].append(time_to_ready(command, port, stop, cwd))
        # The ratios are to the first channel: the binary when it is given.
        base = statistics.median(times[found[0][0]]) if found else 1.0
        first = found[0][0] if found else "-"
        print(f"{'channel':32} {'size MB':>8} {'ready ms (median)':>18} {'min–max':>14} {'÷ ' + first[:8]:>9}")
        for name, size, _ in found:
            t = times[name]
            median = statistics.median(t)
            print(f"{name:32} {size / 1e6:8.1f} {median * 1e3:18.1f} {min(t) * 1e3:6.1f}–{max(t) * 1e3:<7.1f} {median / base:9.2f}")


if __name__ == "__main__":
    main()

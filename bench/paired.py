#!/usr/bin/env python3
"""Runs commands side by side, alternating run by run, and prints medians, ratios and peak RSS.

Each timed run is one process started with posix_spawn (stdout and stderr to /dev/null) and
reaped with wait4; nothing else is timed, so both sides pay the same small start-up cost. Peak
memory is measured in separate runs under GNU time (`/usr/bin/time -f %M`): a child spawned
straight from Python would report Python's own resident size, which exec carries into
ru_maxrss. Alternating A, B, A, B, ... (the order flipped every
other round) means a noisy neighbour slows both sides alike: the paired ratio (the median of
B_i / A_i over rounds) is the figure to trust on a busy machine.

A command may be a sequence of processes separated by a lone `;;` (`a x ;; b y`): they run one
after another, each spawned the same way, and a run's time is the sum of their times, with no
interpreter between them (a shell script would add its own start-up, a few milliseconds that
belong to neither side). Its peak RSS is the largest of its processes'.

Every ratio line ends with the load average before and after the measurement (the machine is
shared: a figure taken under load says so), and with --tag's text (bench/compare.sh names the
meshchart binary and its cargo profile there). --summary FILE appends each paired ratio, and
each command's peak RSS in MiB, to FILE as `NAME<TAB>FIGURE<TAB>LOAD` lines, for a closing table.

usage: paired.py [--runs N] [--warmup N] [--rss-runs N] [--tag TEXT] [--summary FILE]
                 NAME=COMMAND NAME=COMMAND ...
       (COMMAND is split like a shell would, without a shell; the first command is the reference
       the others are divided by)
"""
import argparse
import os
import shlex
import statistics
import tempfile
import time


def run_once(argv):
    """Wall seconds of one run of argv (output discarded); exits if it fails."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        start = time.perf_counter()
        pid = os.posix_spawnp(argv[0], argv, os.environ,
                              file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                            (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status = os.waitpid(pid, 0)
        wall = time.perf_counter() - start
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed (exit {os.waitstatus_to_exitcode(status)}): {shlex.join(argv)}")
    return wall


def run_sequence(sequence):
    """Wall seconds of one run of each process of `sequence` in turn, summed."""
    return sum(run_once(argv) for argv in sequence)


def peak_rss_kib(argv):
    """Peak resident memory (KiB) of one run of argv, as GNU time reports it."""
    with tempfile.NamedTemporaryFile("r") as out:
        run_once(["/usr/bin/time", "-f", "%M", "-o", out.name, *argv])
        return int(out.read().split()[-1])


def split_sequence(words):
    """The processes of a command: its words split at each lone `;;`."""
    sequence = [[]]
    for word in words:
        if word == ";;":
            sequence.append([])
        else:
            sequence[-1].append(word)
    if any(not argv for argv in sequence):
        raise SystemExit(f"empty process in sequence: {shlex.join(words)}")
    return sequence


def measure(commands, runs, warmup, rss_runs=3):
    """{name: ([wall...], [rss...])}: `runs` alternating rounds after `warmup` rounds, then
    `rss_runs` runs of each under GNU time."""
    results = {name: ([], []) for name, _ in commands}
    for round_no in range(warmup + runs):
        order = commands if round_no % 2 == 0 else list(reversed(commands))
        for name, sequence in order:
            wall = run_sequence(sequence)
            if round_no >= warmup:
                results[name][0].append(wall)
    for _ in range(rss_runs):
        for name, sequence in commands:
            results[name][1].append(max(peak_rss_kib(argv) for argv in sequence))
    return results


def fmt_time(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.3f} s"


def load_average():
    """The 1-, 5- and 15-minute load averages, as /proc/loadavg gives them."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def report(commands, results, runs, load, tag="", summary=None):
    """Prints medians, spread and peak RSS of each command, then paired time ratios (and peak
    RSS ratios) against the first command, each with the load average `load` and `tag`."""
    ref_name = commands[0][0]
    ref, ref_rss = results[ref_name]
    width = max(len(name) for name, _ in commands)
    for name, _ in commands:
        walls, rss = results[name]
        line = f"  {name:<{width}}"
        if walls:
            walls_sorted = sorted(walls)
            line += (f"  median {fmt_time(statistics.median(walls))}"
                     f"  (min {fmt_time(walls_sorted[0])}, max {fmt_time(walls_sorted[-1])},"
                     f" {runs} runs)")
        if rss:
            line += f"  peak RSS {max(rss) / 1024:.1f} MiB"
            if summary:
                with open(summary, "a") as f:
                    f.write(f"{name}: peak RSS\t{max(rss) / 1024:.1f}\t{load}\n")
        print(line)
    for name, _ in commands[1:]:
        walls, rss = results[name]
        if walls:
            paired = statistics.median(b / a for a, b in zip(ref, walls))
            of_medians = statistics.median(walls) / statistics.median(ref)
            print(f"  {name} / {ref_name}: paired median ratio {paired:.2f}x"
                  f" (ratio of medians {of_medians:.2f}x; load average {load}{tag})")
            if summary:
                with open(summary, "a") as f:
                    f.write(f"{name} / {ref_name}\t{paired:.2f}\t{load}\n")
        elif rss:
            print(f"  {name} / {ref_name}: peak RSS ratio {max(rss) / max(ref_rss):.2f}x"
                  f" (load average {load}{tag})")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--rss-runs", type=int, default=3)
    parser.add_argument("--tag", default="", help="named on every ratio line")
    parser.add_argument("--summary", help="file to append each paired ratio to")
    parser.add_argument("commands", nargs="+", metavar="NAME=COMMAND")
    args = parser.parse_args()
    commands = []
    for item in args.commands:
        name, _, command = item.partition("=")
        commands.append((name, split_sequence(shlex.split(command))))
    before = load_average()
    results = measure(commands, args.runs, args.warmup, args.rss_runs)
    load = f"{before} before, {load_average()} after"
    tag = f"; {args.tag}" if args.tag else ""
    report(commands, results, args.runs, load, tag, args.summary)


if __name__ == "__main__":
    main()

"""Campaign files are contained (issue 25): names, paths, numbers and the YAML itself.

Every malformed file is refused by ``inventory.load`` (what ``overhead check`` runs) with one
``file:line: what`` message, exit status 2 from the command line, never a traceback; a path a
campaign names cannot lead outside its place. Pure: no host is contacted.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from overhead.campaign import inventory, plan
from overhead.campaign.check import check
from overhead.errors import InputError
from overhead.paths import ROOT

BASE = """\
name: contained
seed: 1
trials: 2
timeout: 60
hosts:
  local: {address: 127.0.0.1, port: 2222, key_file: ssh/id, known_hosts: ssh/known_hosts}
environments:
  native: {kind: native, host: local}
  vm: {kind: vm, host: local, image: image/current}
benchmarks:
  cpu: {runner: sysbench, params: {test: cpu, threads: [1, 2], time: 1}}
"""

#: The attacks' two path escapes, the 8 files that ended in a traceback and the 5 accepted
#: silently: (id, old text of BASE, new text, expected line, what the message must say).
DEEP = "[" * 5000 + "]" * 5000
MALFORMED = [
    ("files-key-escape", "trials: 2\n", 'trials: 2\nfiles: {"../../../../tmp/x": secret.txt}\n',
     4, "file name '../../../../tmp/x' must be a plain name"),
    ("runner-escape", "runner: sysbench", "runner: ../../../../tmp/evil",
     11, "runner name '../../../../tmp/evil' must be a plain name"),
    ("nul-byte", "seed: 1\n", "seed: 1\x00\n", 2, "not valid YAML"),
    ("non-utf8", "seed: 1\n", "seed: 1\xff\n", 2, "not UTF-8 text (byte 0xff)"),
    ("hosts-list", "hosts:\n  local: {address: 127.0.0.1, port: 2222, key_file: ssh/id, "
     "known_hosts: ssh/known_hosts}\n", "hosts: [local]\n", 5, "hosts: a mapping of names"),
    ("environments-list", "environments:\n  native: {kind: native, host: local}\n  vm: {kind: vm, "
     "host: local, image: image/current}\n", "environments: [native]\n", 7,
     "environments: a mapping of names"),
    ("seed-5001-digits", "seed: 1\n", "seed: " + "9" * 5001 + "\n", 2, "not a usable integer"),
    ("deep-nesting", "test: cpu", f"test: {DEEP}", 11, "nested deeper than 32 levels"),
    ("client-list", "params: {test: cpu,", "client: [local], params: {test: cpu,", 11,
     "benchmarks.cpu.client"),
    ("duplicate-environment", "  vm: {kind: vm,", "  native: {kind: native, host: local}\n"
     "  vm: {kind: vm,", 9, "key 'native' given twice (lines 8 and 9)"),
    ("duplicate-benchmark", "benchmarks:\n", "benchmarks:\n  cpu: {runner: fio}\n", 12,
     "key 'cpu' given twice (lines 11 and 12)"),
    ("duplicate-parameter", "time: 1}", "time: 1, test: memory}", 11,
     "key 'test' given twice (lines 11 and 11)"),
    ("trials-bool", "trials: 2", "trials: true", 3, "trials: Input should be a valid integer"),
    ("key-file-mapping", "key_file: ssh/id", "key_file: {a: 1}", 6,
     "hosts.local.key_file: a path (a non-empty string), not {'a': 1}"),
    ("no-benchmarks", "benchmarks:\n  cpu: {runner: sysbench, params: {test: cpu, threads: [1, "
     "2], time: 1}}\n", "benchmarks: {}\n", 10, "no benchmark: a campaign runs at least one"),
]
#: More bounds and names: (id, old, new, line, message fragment).
BOUNDS = [
    ("timeout-inf", "timeout: 60", "timeout: .inf", 4, "timeout: Input should be a finite number"),
    ("timeout-8-days", "timeout: 60", "timeout: 691200", 4, "less than or equal to 604800"),
    ("connect-timeout-inf", "port: 2222,", "port: 2222, connect_timeout: .inf,", 6,
     "hosts.local.connect_timeout: Input should be"),
    ("keepalive-nan", "port: 2222,", "port: 2222, keepalive: .nan,", 6,
     "hosts.local.keepalive: Input should be"),
    ("boot-timeout-inf", "image: image/current}", "image: image/current, boot_timeout: .inf}", 9,
     "environments.vm.boot_timeout: Input should be"),
    ("target-inf", "trials: 2\n", "stopping: {metric: events, target: .inf}\n", 3,
     "stopping.precision.target: Input should be"),
    ("param-inf", "time: 1}", "time: .inf}", 11, "benchmarks.cpu.params.time"),
    ("trials-huge", "trials: 2", "trials: 100000000", 3, "less than or equal to 10000"),
    ("warmup-huge", "trials: 2", "trials: 2\nwarmup: 10001", 4, "less than or equal to 10000"),
    ("bench-trials-float", "time: 1}}", "time: 1}, trials: 2.5}", 11, "benchmarks.cpu.trials"),
    ("seed-negative", "seed: 1", "seed: -1", 2, "seed: Input should be greater than or equal to 0"),
    ("seed-2-63", "seed: 1", f"seed: {2**63}", 2, "seed: Input should be less than"),
    ("grid-20-to-the-6", "params: {test: cpu, threads: [1, 2], time: 1}",
     "params: {" + ", ".join(f"{a}: [{', '.join(map(str, range(20)))}]" for a in "abcdef") + "}",
     11, "the grid has 64,000,000 points"),
    ("plan-too-big", "threads: [1, 2], time: 1}}", "threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "
     "time: 1}, trials: 10000}", 11, "benchmarks.cpu: the plan would have 200,000 trials"),
    ("name-with-newline", "  native: {kind: native", '  "native\\n": {kind: native', 8,
     "environment name 'native\\n' must be a plain name"),
    ("name-300-chars", "  native: {kind: native", "  " + "n" * 300 + ": {kind: native", 8,
     "must be a plain name"),
    ("name-reserved", "  native: {kind: native", "  facts: {kind: native", 8,
     "environment name 'facts' is a folder of the raw tree"),
    ("parameter-name", "time: 1}", "Time: 1}", 11, "parameter name 'Time' must be lower case"),
    ("campaign-name-dots", "name: contained", "name: a..b", 1, "campaign name 'a..b'"),
    ("profile-escape", "trials: 2", "trials: 2\nprofile: ../../../../tmp/p", 4,
     "profile '../../../../tmp/p': a profile is a plain name"),
    ("key-file-escape", "key_file: ssh/id", "key_file: ../../../../tmp/id", 6,
     "hosts.local.key_file: '../../../../tmp/id' leads to "),
    ("image-escape", "image: image/current", "image: ../../../../tmp/img", 9,
     "environments.vm.image: '../../../../tmp/img' leads to "),
    ("file-value-escape", "trials: 2\n", "trials: 2\nfiles: {secret: ../../../../tmp/s}\n", 4,
     "files.secret: '../../../../tmp/s' leads to "),
    ("runners-escape", "trials: 2\n", "trials: 2\nrunners: ../../../../tmp/r\n", 4,
     "runners: '../../../../tmp/r' leads to "),
    ("path-ref-escape", "time: 1}", "time: '{path:../../../../tmp/img}'}", 11,
     "benchmarks.cpu: {path:../../../../tmp/img}: '../../../../tmp/img' leads to "),
    ("non-string-key", "  native: {kind: native", "  1: {kind: native", 8,
     "key 1 is not a name"),
    ("big-file", "trials: 2\n", "trials: 2\n" + "# padding\n" * 110_000, 1,
     "bytes: a campaign, inventory or profile file has at most 1,048,576"),
]
#: Words that reach a command line (issue 46): an image, an address, a user name, each tried
#: as an option, a substitution, a newline, a NUL, a control character; YAML read as data (no
#: tags, YAML 1.2 numbers and booleans). (id, old, new, line, message fragment)
DOCKER = "  native: {kind: native, host: local}"
HOSTILE = [
    *[(f"image-{i}", DOCKER, f"  native: {{kind: docker, host: local, image: {word}}}", 8,
       "environments.native.image: Value error, ") for i, word in enumerate(
        ["'--privileged'", "'-v/:/host'", "'$(id)'", "'a b'", '"x\\n"', "'X:latest'", "''"])],
    ("image-nul", DOCKER, '  native: {kind: docker, host: local, image: "a\\0b"}', 8,
     "a NUL character in a value"),
    ("image-binary-tag", DOCKER, "  native: {kind: docker, host: local, image: !!binary LS1w}", 8,
     "a YAML tag (tag:yaml.org,2002:binary)"),
    ("address-newline", "address: 127.0.0.1", 'address: "127.0.0.1\\n"', 6,
     "hosts.local.address: Value error, '127.0.0.1\\n' is not a host address"),
    ("address-empty", "address: 127.0.0.1", "address: ''", 6, "is not a host address"),
    ("address-option", "address: 127.0.0.1", "address: '-oProxyCommand=id'", 6,
     "is not a host address"),
    ("address-control", "address: 127.0.0.1", 'address: "127.0.0.1\\x01"', 6,
     "a control character ('\\x01') in a value"),
    ("address-binary", "address: 127.0.0.1", "address: !!binary MTI3LjAuMC4xAA==", 6,
     "a YAML tag"),
    ("user-injection", "port: 2222,", "port: 2222, user: 'root;id',", 6,
     "hosts.local.user: Value error, 'root;id' is not a user name"),
    ("user-option", "port: 2222,", "port: 2222, user: '-lroot',", 6, "is not a user name"),
    ("python-tag", "seed: 1", "seed: !!python/object/apply:os.system [id]", 2, "a YAML tag"),
    ("custom-tag", "time: 1}", "time: !mine 1}", 11, "a YAML tag (!mine)"),
    ("trials-hex", "trials: 2", "trials: 0x10", 3, "trials: Input should be a valid integer"),
    ("trials-underscore", "trials: 2", "trials: 1_0", 3, "trials: Input should be a valid integer"),
    ("trials-sexagesimal", "trials: 2", "trials: 1:20", 3,
     "trials: Input should be a valid integer"),
    ("trials-octal-reads-decimal", "trials: 2", "trials: 010\nwarmup: yes", 4,
     "warmup: Input should be a valid integer"),
    ("timeout-denormal", "timeout: 60", "timeout: 1e-320", 4,
     "timeout: Input should be greater than or equal to 0.001"),
]


def campaign_dir(tmp_path: Path) -> Path:
    """A campaign folder in tmp_path/c with the files BASE names (keys, known_hosts, image)."""
    folder = tmp_path / "c"
    (folder / "ssh").mkdir(parents=True)
    (folder / "ssh" / "id").write_text("key\n")
    (folder / "ssh" / "known_hosts").write_text("[127.0.0.1]:2222 ssh-ed25519 AAAA\n")
    (folder / "image" / "current").mkdir(parents=True)
    (folder / "image" / "current" / "disk.raw").write_bytes(b"")
    return folder


def write(folder: Path, old: str, new: str) -> Path:
    assert old in BASE, old
    path = folder / "campaign.yml"
    path.write_bytes(BASE.replace(old, new, 1).encode("utf-8", "surrogateescape")
                     .replace(b"\xc3\xbf", b"\xff"))  # "\xff" stands for the raw byte
    return path


def test_the_base_campaign_loads_and_is_ready(tmp_path):
    folder = campaign_dir(tmp_path)
    c = inventory.load(write(folder, "trials: 2", "trials: 2"))
    assert check(c).ok and c.hosts["local"].key_file == folder / "ssh" / "id"


@pytest.mark.parametrize(("old", "new", "line", "what"),
                         [pytest.param(*case[1:], id=case[0])
                          for case in MALFORMED + BOUNDS + HOSTILE])
def test_malformed_files_are_refused_naming_file_and_line(tmp_path, old, new, line, what):
    path = write(campaign_dir(tmp_path), old, new)
    with pytest.raises(InputError) as err:
        inventory.load(path)
    message = str(err.value)
    assert message.startswith(f"{path}:{line}: "), message[:300]
    assert what in message, message[:300]


def test_absolute_and_home_paths_are_the_users_choice(tmp_path, monkeypatch):
    """An absolute or ~ path is taken as written (a user's own ~/.ssh/known_hosts); relative
    ones may reach the folder beside the campaign's (../hosts/ssh/...) and the checkout."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = campaign_dir(tmp_path)
    (tmp_path / "hosts").mkdir()
    path = write(folder, "key_file: ssh/id, known_hosts: ssh/known_hosts",
                 "key_file: ~/.ssh/id_ed25519, known_hosts: /etc/ssh/ssh_known_hosts")
    c = inventory.load(path)
    assert c.hosts["local"].key_file == tmp_path / "home" / ".ssh" / "id_ed25519"
    assert c.hosts["local"].known_hosts == Path("/etc/ssh/ssh_known_hosts")
    path = write(folder, "key_file: ssh/id", "key_file: ../hosts/id")
    assert inventory.load(path).hosts["local"].key_file == tmp_path / "hosts" / "id"
    image = ROOT / "data" / "hosts" / "image" / "current"
    path = write(folder, "image: image/current", f"image: {os.path.relpath(image, folder)}")
    assert inventory.load(path).environments["vm"].image == image.resolve()


def test_a_symlink_out_of_the_campaign_folder_is_refused(tmp_path):
    folder = campaign_dir(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (folder / "keys").symlink_to(outside)
    path = write(folder, "key_file: ssh/id", "key_file: keys/id")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:6: hosts\.local\.key_file: "
                                         rf"'keys/id' leads to {re.escape(str(outside))}/id, outside"):
        inventory.load(path)


def test_a_plan_at_the_bounds_is_counted_before_it_is_expanded(tmp_path):
    """plan_size counts cells x rounds from the axes' lengths; the plan made has that many."""
    folder = campaign_dir(tmp_path)
    c = inventory.load(write(folder, "trials: 2", "trials: 3\nwarmup: 1"))
    total, biggest = inventory.plan_size(c)
    assert (total, biggest) == (len(plan.make_plan(c).trials), "cpu") == (16, "cpu")
    # 10 x 10 x 1000 points in 2 environments: at the grid's bound, over the plan's
    axes = "params: {a: [" + ", ".join(map(str, range(10))) + "], b: [" + ", ".join(
        map(str, range(10))) + "], c: [" + ", ".join(map(str, range(1000))) + "]}"
    path = write(folder, "params: {test: cpu, threads: [1, 2], time: 1}", axes)
    with pytest.raises(InputError, match=r"campaign\.yml:11: benchmarks\.cpu: the plan would "
                                         r"have 400,000 trials"):
        inventory.load(path)


def test_inventory_and_profile_escapes_name_their_line(tmp_path):
    folder = campaign_dir(tmp_path)
    (folder / "inv.yml").write_text("hosts:\n  local: {address: 127.0.0.1, known_hosts: "
                                    "../../../../tmp/kh}\n")
    text = BASE.replace("hosts:\n  local: {address: 127.0.0.1, port: 2222, key_file: ssh/id, "
                        "known_hosts: ssh/known_hosts}\n", "inventory: inv.yml\n")
    path = folder / "campaign.yml"
    path.write_text(text)
    with pytest.raises(InputError, match=rf"^{re.escape(str(folder / 'inv.yml'))}:2: "
                                         r"hosts\.local\.known_hosts: '\.\./\.\./\.\./\.\./tmp/kh'"):
        inventory.load(path)
    (folder / "profiles").mkdir()
    (folder / "profiles" / "p.yml").write_text("extends: ../../x\nbenchmarks: {}\n")
    path.write_text(BASE.replace("trials: 2", "profile: p"))
    with pytest.raises(InputError, match=r"campaign\.yml:3: .*p\.yml:1: profile '\.\./\.\./x': "
                                         r"a profile is a plain name"):
        inventory.load(path)


@given(name=st.text(min_size=1, max_size=80))
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_environment_name_accepted_is_one_plain_path_component(tmp_path, name):
    """Whatever text names an environment, either the file is refused with file:line or the
    name is a single, plain path component of at most 64 characters."""
    path = tmp_path / "names.yml"
    text = BASE.replace("  native: {kind: native", f"  {json_string(name)}: {{kind: native")
    path.write_text(text.replace("image: image/current", "image: /img"))
    try:
        c = inventory.load(path)
    except InputError as exc:
        assert re.match(rf"{re.escape(str(path))}:\d+: ", str(exc)), str(exc)
        return
    assert name in c.environments and re.fullmatch(inventory.NAME, name)
    assert len(name) <= 64 and Path(name).name == name and name not in (".", "..")
    assert "/" not in name and "\n" not in name


def json_string(text: str) -> str:
    """A YAML double-quoted scalar for ``text`` (JSON's escapes are YAML's)."""
    import json

    return json.dumps(text)


# --- the command line ---------------------------------------------------------------------------

def test_overhead_check_refuses_each_attack_with_one_line_and_status_2(tmp_path):
    """The real `overhead check` on the two escapes, the 8 former tracebacks and the 5 files it
    accepted silently: exit status 2, one line naming the file and line, no traceback."""
    exe = Path(sys.executable).with_name("overhead")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "lib")}
    for case_id, old, new, line, what in MALFORMED:
        folder = campaign_dir(tmp_path / case_id)
        path = write(folder, old, new)
        r = subprocess.run([str(exe), "check", str(path)], capture_output=True, text=True,
                           env=env, timeout=120)
        assert r.returncode == 2, (case_id, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr and r.stdout == "", (case_id, r.stderr)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"{path}:{line}: "), (case_id, lines)
        assert what in lines[0], (case_id, lines[0])


# --- the fuzz test ------------------------------------------------------------------------------

#: Values a mutant puts in place of a scalar (weird for a campaign file, every one of them).
WEIRD = [".inf", "-.inf", ".nan", "1.0e400", "true", "null", "''", "9" * 5001, "-1", "0",
         "99999999999999999999", str(2**63), '"a\\0b"', "../../../../tmp/x", "/etc/shadow",
         "~nouser/x", "[local]", "{a: 1}", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
         "{}", "[]", '"native\\n"', "n" * 300, "&a [1, 2]", "*nosuch", "!!python/object:os.system",
         "'{path:../../../../etc}'", "'{file:nope}'", "10000", "10001", "3.5", "2014-01-01",
         "'{file:mysql}'", "[" * 100, "'ab\tc'", "!!binary aGVsbG8=", "yes", "0x7fffffffffffffff"]
#: Keys a mutant puts in place of a key.
WEIRD_KEYS = ['"../x"', '"a\\n"', "1", "yes", "n" * 300, "null", "'<<'", "facts", "[a, b]",
              "kind", "host", "benchmarks", "params", "files", "inventory", "runners", "profile"]
_VALUE = re.compile(rb"([A-Za-z_][\w-]*): *([^,{}\[\]\n#]+)")


def mutate(rng, data: bytes) -> bytes:
    """Return ``data`` after 1 to 3 random mutations (bytes, lines, values, keys)."""
    for _ in range(rng.randint(1, 3)):
        lines = data.split(b"\n")
        op = rng.randrange(9)
        if op == 0 and data:  # flip a byte
            i = rng.randrange(len(data))
            data = data[:i] + bytes([rng.choice([0, 0xFF, 0x0A, 0x7B, 0x5B, 0x3A, 0x22,
                                                 rng.randrange(256)])]) + data[i + 1:]
        elif op == 1 and len(lines) > 1:  # delete a line
            del lines[rng.randrange(len(lines))]
            data = b"\n".join(lines)
        elif op == 2:  # duplicate a line
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            data = b"\n".join(lines)
        elif op == 3 and len(lines) > 1:  # swap two lines
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        elif op in (4, 5, 6):  # a value replaced by a weird one
            spots = list(_VALUE.finditer(data))
            if spots:
                m = rng.choice(spots)
                data = data[:m.start(2)] + rng.choice(WEIRD).encode() + data[m.end(2):]
        elif op == 7:  # a key replaced by a weird one
            spots = list(_VALUE.finditer(data))
            if spots:
                m = rng.choice(spots)
                data = data[:m.start(1)] + rng.choice(WEIRD_KEYS).encode() + data[m.end(1):]
        else:  # truncated
            data = data[:rng.randrange(len(data) + 1)]
    return data


def fuzz_tree(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A copy of data/campaigns (with profiles) and the data/hosts files they name."""
    import shutil

    tree = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "campaigns", tree / "campaigns")
    hosts = tree / "hosts"
    (hosts / "ssh").mkdir(parents=True)
    for name in ("id_ed25519", "known_hosts"):
        (hosts / "ssh" / name).write_text("x\n")
    (hosts / "image" / "current").mkdir(parents=True)
    (hosts / "image" / "current" / "disk.raw").write_bytes(b"")
    (hosts / "secrets").mkdir()
    (hosts / "secrets" / "mysql.cnf").write_text("mysql-password=x\n")
    (hosts / "secrets" / "mysql.cnf").chmod(0o600)
    corpus = {f"campaigns/{p.name}": p.read_bytes() for p in (tree / "campaigns").glob("*.yml")}
    corpus["campaigns/base.yml"] = BASE.replace("ssh/id", "../hosts/ssh/id_ed25519").replace(
        "ssh/known_hosts", "../hosts/ssh/known_hosts").replace(
        "image/current", "../hosts/image/current").encode()
    return tree, corpus


#: Mutants per run: PyYAML's pure-Python parser takes most of the ~15 ms each (under 60 s).
MUTANTS = 2500


class _Hang(Exception):
    pass


def test_fuzz_mutants_of_the_campaign_files_end_clean(tmp_path):
    """2,500 seeded mutants of the project's campaign files (and, one in ten, of a profile they
    use) through load + check, in process: each is accepted (ready, or with problems listed) or
    refused with `file:line: what`; none raises anything else, none takes over 10 s."""
    import random
    import signal
    import time

    tree, corpus = fuzz_tree(tmp_path)
    # the quick files most of the time (paper.yml's profile takes 0.15 s to read: 1 in 40)
    names = ["campaigns/base.yml"] * 14 + ["campaigns/local-smoke.yml"] * 10 + [
        "campaigns/fsync.yml", "campaigns/startup.yml"] * 5 + [
        "campaigns/sysbench-suite.yml", "campaigns/local-quick.yml"] * 2 + ["campaigns/paper.yml"]
    profiles = sorted((tree / "campaigns" / "profiles").glob("*.yml"))
    rng = random.Random(25)
    counts = {"ready": 0, "problems": 0, "refused": 0, "traceback": 0, "slow": 0}
    bad: list[str] = []

    def hang(*_):
        raise _Hang

    old = signal.signal(signal.SIGALRM, hang)
    try:
        for n in range(MUTANTS):
            source = rng.choice(names)
            target = tree / "campaigns" / f"mutant-{n % 7}.yml"
            profile = rng.choice(profiles) if rng.random() < 0.1 else None
            saved = profile.read_bytes() if profile else None
            if profile:
                profile.write_bytes(mutate(rng, saved))
                target.write_bytes(corpus[source] if b"profile:" in corpus[source]
                                   else corpus["campaigns/local-quick.yml"])
            else:
                target.write_bytes(mutate(rng, corpus[source]))
            t0 = time.perf_counter()
            signal.alarm(10)
            try:
                result = check(inventory.load(target))
                counts["ready" if result.ok else "problems"] += 1
            except InputError as exc:
                counts["refused"] += 1
                for line in str(exc).splitlines():
                    if not (re.match(rf"{re.escape(str(tree))}/\S+\.yml:\d+: \S", line)
                            or re.fullmatch(r"\(and \d+ more\)", line)):
                        bad.append(f"mutant {n} ({source}): not file:line: {line[:200]}")
            except _Hang:
                counts["traceback"] += 1
                bad.append(f"mutant {n} ({source}): over 10 s")
            except Exception as exc:  # noqa: BLE001 - what the test is looking for
                counts["traceback"] += 1
                bad.append(f"mutant {n} ({source}): {type(exc).__name__}: {str(exc)[:200]}")
            finally:
                signal.alarm(0)
                if profile:
                    profile.write_bytes(saved)
            if time.perf_counter() - t0 > 2:
                counts["slow"] += 1
    finally:
        signal.signal(signal.SIGALRM, old)
    accepted = counts["ready"] + counts["problems"]
    print(f"\nfuzz: {MUTANTS} mutants: {accepted} accepted ({counts['ready']} ready, "
          f"{counts['problems']} with problems), {counts['refused']} refused with file:line, "
          f"{counts['traceback']} tracebacks, {counts['slow']} over 2 s")
    assert bad == [], "\n".join(bad[:20])
    assert counts["traceback"] == 0
    # the mutants exercised both sides: many refused, some still runnable campaigns
    assert counts["refused"] > MUTANTS // 2 and counts["ready"] > MUTANTS // 20


@pytest.mark.parametrize(("word", "what"), [
    ("trials=" + "[" * 5000, "--set trials: nested deeper than 32 levels"),
    ("name=!!python/object/apply:os.system [id]", "--set name: a YAML tag"),
    ("trials=!!binary MTA=", "--set trials: a YAML tag"),
    ('hosts.local.address="127.0.0.1\\0"', "--set hosts.local.address: a NUL character"),
    ("hosts.local.address='127.0.0.1", "--set hosts.local.address: not a YAML value"),
])
def test_set_values_are_read_as_campaign_files_are(word, what):
    """``--set`` goes through the campaign files' loader: the same refusals, one line each."""
    with pytest.raises(InputError) as err:
        inventory.overrides_from_sets([word])
    assert str(err.value).startswith(what), str(err.value)[:300]
    # and what YAML 1.1 would have read otherwise stays text, for the field to refuse
    assert inventory.overrides_from_sets(["trials=0x10", "trials=1:20"]) == {"trials": "1:20"}

# The warm pool of the Python driver (see python-driver.py and docs/architecture/warm-pools.md): one
# spare worker forked ahead of need, for the next fresh worker (a reset's agent, a gold or a judge run);
# loaded after python-branches.py, in one program with it. On with `"warm":true` in the config.
#
# A spare is forked once the driver is idle (no request came within IDLE_WAIT of its last answer: a
# request that follows at once is answered first), warms itself (runs a first code the way a request
# does, in a throw-away namespace with its output to /dev/null, so the copy-on-write faults of a fresh
# worker's first code are paid there) and waits. Until its first request it stays not dumpable, so no
# process of the episode running beside it can ptrace it or open its private /proc files (memory,
# descriptors, environment). What such a process can still do to it is checked from /proc when it is
# taken, without waking it: gone or stopped (its state), resource limits, nice value, scheduling policy
# and CPU affinity changed (against the driver's own, which a new episode's reset checks in turn, and
# the worker's two limits of its own). A spare that fails is killed and a new worker forked in its
# place. `{"pss":1}` asks an idle spare for its proportional set size (`{"k":"pss","bytes":n}`): only
# it can read its own /proc files.

WARM = bool(CONFIG.get('warm'))
TAKE_WAIT = 2.0  # seconds an idle spare gets to answer
WARM_CODE = '''def warm_up(values):
    seen = {}
    for index, value in enumerate(values):
        seen[str(value)] = [item * 2 for item in range(value % 7)] + list(map(abs, (-value, index)))
    try:
        int('not a number')
    except ValueError as error:
        text = '%s %r' % (error, sorted(seen)[:3])
    return len(seen), text.split()[0], max(values), sum(set(values)), tuple(zip(values, values))[:2]
warm_up(list(range(50)))'''


IDLE_WAIT = 0.005  # seconds the driver waits for a next request before it forks a spare


def process_settings(pid):
    """What another process of the sandbox's user can change in process pid ('self': this one) without
    ptrace, from files of /proc anyone may read: resource limits, nice value, scheduling policy, CPU
    affinity. None when the process is gone."""
    try:
        with open('/proc/%s/limits' % pid) as limits:
            lines = [line.split() for line in limits.read().splitlines()[1:]]
        with open('/proc/%s/stat' % pid) as stat:
            fields = stat.read().rsplit(')', 1)[1].split()
        with open('/proc/%s/status' % pid) as status:
            cpus = [line for line in status.read().splitlines() if line.startswith('Cpus_allowed_list')]
    except (OSError, IndexError):
        return None
    return lines, fields[16], fields[38], cpus


def worker_settings(settings):
    """A worker's settings: the driver's, but the two limits a worker sets itself (worker_main)."""
    if settings is None:
        return None
    limit = CONFIG.get('memory_bytes')
    own = {'address': [str(limit)] * 2 if limit else None, 'msgqueue': ['0', '0']}
    lines = [line[:3] + own[line[1]] + line[5:] if len(line) > 4 and own.get(line[1]) else line
             for line in settings[0]]
    return (lines,) + tuple(settings[1:])


BOOT_SETTINGS = process_settings('self')  # the driver's own, which a new episode's reset finds again
SPARE_SETTINGS = worker_settings(BOOT_SETTINGS)  # what an idle spare must have


def warm_worker():
    """In a spare, before it waits: a first code run the way run_one runs one, leaving no trace (its
    namespace is thrown away, its output went to /dev/null, sys.stdout and sys.stderr are put back).
    Returns what makes the worker dumpable once taken, bound ahead (ctypes is the driver's already)."""
    try:
        import ctypes
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        prctl = None

    def dumpable():
        if prctl is None or prctl(4, 1, 0, 0, 0) != 0:
            set_dumpable(1)

    saved = sys.stdout, sys.stderr
    sink = io.TextIOWrapper(io.BufferedWriter(io.FileIO(NULL, 'w', closefd=False), 65536), encoding='utf-8',
                            errors='backslashreplace')
    sys.stdout = sys.stderr = sink
    try:
        exec(wrap_rule(WARM_CODE), {'__name__': '__main__', '__builtins__': builtins})
        print(describe(ValueError('warm')))
        json.loads(pack({'k': 'r', 'i': 0, 'output': 'warm', 'error': '', 'ok': True})[4:])
    except BaseException:
        pass
    finally:
        try:
            sink.flush()
        except BaseException:
            pass
        sys.stdout, sys.stderr = saved
    return dumpable


def pss(pid='self'):
    """Proportional set size of process pid, bytes (0 when it cannot be read)."""
    try:
        with open('/proc/%s/smaps_rollup' % pid) as rollup:
            for line in rollup:
                if line.startswith('Pss:'):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def idle_request(request, send):
    """A spare's answer to a request while idle; False when the request is not for an idle spare."""
    if request.get('pss'):
        send({'k': 'pss', 'bytes': pss()})
        return True
    return False


def worker_state(pid):
    try:
        with open('/proc/%d/stat' % pid) as stat:
            return stat.read().rsplit(')', 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def discard(worker):
    """Ends a worker that never ran any code (a spare that is stopped, altered or silent)."""
    worker.close()
    try:
        os.kill(worker.pid, signal.SIGKILL)
        os.waitpid(worker.pid, 0)
    except (OSError, ChildProcessError):
        pass


def runnable(worker):
    """The worker is alive and not stopped."""
    return worker_state(worker.pid) not in (None, 'Z', 'X', 'T', 't')


def fit(worker):
    """An idle spare that nothing changed: alive, running, with the driver's settings (see the header)."""
    if not runnable(worker):
        return False
    return not WARM or process_settings(worker.pid) == SPARE_SETTINGS


def take_spare():
    """The spare worker if it is still there and fit; else a new worker."""
    global spare
    worker, spare = spare, None
    if worker is not None:
        if fit(worker):
            return worker
        discard(worker)
    return spawn_worker()


def host_idle():
    """No request waits, nor comes within IDLE_WAIT."""
    try:
        return not select.select([HOST_IN], [], [], IDLE_WAIT)[0]
    except (OSError, ValueError):
        return False


def pool_stats():
    """The host's `{"op":"pool"}`: the idle workers (the spare, 0 or 1, and the kept worker of
    python-kept-worker.py, 0 or 1), their proportional set size and the most there may be."""
    idle, pss = kept_stats()
    spares = spare_stats()
    return {'idle': idle + spares['idle'], 'pss': pss + spares['pss'], 'limit': int(KEEP) + spares['limit']}


def spare_stats():
    """The idle spare (0 or 1), its proportional set size and the limit (1, or 0 with the pool off)."""
    global spare
    if not WARM:
        return {'idle': 0, 'pss': 0, 'limit': 0}
    if spare is not None:
        reply = None
        if fit(spare):
            try:
                spare.ctl.sendall(pack({'pss': True}))
                reply = next_message(spare, TAKE_WAIT)
            except OSError:
                reply = None
        if isinstance(reply, dict) and reply.get('k') == 'pss' and type(reply.get('bytes')) is int:
            return {'idle': 1, 'pss': reply['bytes'], 'limit': 1}
        discard(spare)
        spare = None
    return {'idle': 0, 'pss': 0, 'limit': 1}

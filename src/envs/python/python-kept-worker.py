# The evaluation sandbox's kept worker (see python-driver.py and docs/architecture/warm-pools.md): loaded
# after python-warm-pool.py, in one program with it. On with `"keep":true` in the config, which only the
# evaluation sandbox's driver gets: the agent's code never runs there, only the dataset's (gold, setup
# code, tests) and the judge, which gets plain values from the agent's side (python-values.py).
#
# A gold or judge run takes a fresh worker, a fork of the driver, and used to end it after the run. With
# the keep on, a worker that ended its run cleanly is kept for the next gold or judge run, which gets new
# globals in it: on a slow machine a fork and a fresh worker's first copy-on-write faults cost more than
# the run (MBPP: two of the four forks of an episode). Clean means: no time limit was reached, the
# worker was not lost, and what the run could change in its process beyond its globals is as it was
# when the worker took its first run (process_state: working directory, umask, environment, resource
# limits, priority and affinity, threads, children, open descriptors, signal handlers, the builtins,
# the modules loaded then, sys's path, hooks, limits and tracing, the collector's settings, exit
# handlers, locale, decimal context). Anything else makes the driver end the worker as before, and so
# does its KEPT_RUNS-th run or a peak memory KEPT_GROWTH above its first one. What the check does not
# see: attributes changed inside loaded modules (`math.pi = 3`), modules loaded by a run (they stay
# loaded, as upstream's one interpreter kept them), audit hooks and codec registrations. A judge's
# undefined names resolve to modules only among those loaded at the worker's first run, as in a fresh
# worker.

KEEP = bool(CONFIG.get('keep'))
KEPT_RUNS = 256  # runs a kept worker serves before a fresh one takes its place
KEPT_GROWTH = 256 << 10  # KiB of peak memory a kept worker may gain over its first run's start
SIGNALS = tuple(sorted(signal.valid_signals() - {signal.SIGKILL, signal.SIGSTOP}))
kept = None  # the worker kept from the last clean gold or judge run, or None


def process_state(modules):
    """What a run of code may change in its process beyond its globals: (values compared by equality,
    objects compared by identity). modules: the names of the modules whose objects must stay."""
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = None
    mask = os.umask(0o022)
    os.umask(mask)
    me = os.getpid()
    try:
        with open('/proc/self/task/%d/children' % me) as listing:
            children = listing.read()
        threads = sorted(os.listdir('/proc/self/task'))
        fds = sorted(os.listdir('/proc/self/fd'))
    except OSError:
        children = threads = fds = None
    locale_module = sys.modules.get('locale')
    try:
        place = locale_module.setlocale(locale_module.LC_ALL) if locale_module else None
    except Exception:
        place = '?'
    threading_module = sys.modules.get('threading')
    values = (
        cwd, mask, dict(os.environ), children, threads, fds, process_settings('self'), place,
        sys.getrecursionlimit(), sys.get_int_max_str_digits(), sys.getswitchinterval(), list(sys.path),
        gc.isenabled(), gc.get_threshold(), len(gc.callbacks), atexit._ncallbacks(),
        repr(_decimal.getcontext()), sys.flags,
    )
    objects = (
        sys.gettrace(), sys.getprofile(), sys.excepthook, sys.displayhook, sys.unraisablehook,
        sys.breakpointhook, sys.stdin, sys.__stdout__, sys.__stderr__,
        threading_module and threading_module.gettrace(), threading_module and threading_module.getprofile(),
        *sys.meta_path, *sys.path_hooks, *(signal.getsignal(number) for number in SIGNALS),
        *sorted(vars(builtins).items()), *((name, sys.modules.get(name)) for name in modules),
    )
    return values, objects


def same_state(before, after):
    """True when process_state found nothing changed."""
    (values, objects), (values_after, objects_after) = before, after
    if values != values_after or len(objects) != len(objects_after):
        return False
    for one, other in zip(objects, objects_after):
        if type(one) is tuple and type(other) is tuple:
            if one[0] != other[0] or one[1] is not other[1]:
                return False
        elif one is not other:
            return False
    return True


def peak_kib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def note_birth(state):
    """In a worker of a keeping driver (its request says `keep`), before its first run: what its runs must
    leave as it is."""
    if 'birth' not in state:
        state['birth'] = process_state(state['modules'])
        state['peak'] = peak_kib()


def still_clean(state):
    """In a worker of a keeping driver, after a run: nothing process_state sees changed, memory within bounds."""
    return 'birth' in state and peak_kib() <= state['peak'] + KEPT_GROWTH and \
        same_state(state['birth'], process_state(state['modules']))


def take_fresh():
    """The worker for a gold or judge run: the kept one while it is alive and not stopped, else the spare
    (or a new worker)."""
    global kept
    worker, kept = kept, None
    if worker is not None:
        if runnable(worker):
            return worker
        discard(worker)
    return take_spare()


def keep_or_end(worker, clean):
    """After a gold or judge run: the worker kept for the next one when the keep is on, the run was clean
    (see the header) and no process but it and the spare is left below the driver; else ended."""
    global kept
    worker.runs += 1
    if KEEP and clean and kept is None and worker.runs < KEPT_RUNS:
        alone = set(descendants()) <= {worker.pid} | ({spare.pid} if spare is not None else set())
        if alone:
            kept = worker
            return
    worker.close()
    try:
        os.killpg(worker.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(worker.pid, 0)
    except ChildProcessError:
        pass


def kept_stats():
    """The kept worker for the pool's figures: (1, its proportional set size) or (0, 0)."""
    if kept is None or worker_state(kept.pid) in (None, 'Z', 'X'):
        return 0, 0
    return 1, pss(kept.pid)

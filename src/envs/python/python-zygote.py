# The zygote part of the Python driver (see python-driver.py): its workers and the clean slate;
# loaded after python-worker.py, in one program with it.
# ---------------------------------------------------------------- zygote (talks to the host)


class Worker:
    def __init__(self, pid, ctl, out_r, err_r, fds):
        self.pid, self.ctl, self.out_r, self.err_r, self.fds = pid, ctl, out_r, err_r, fds
        self.buffer = b''
        self.releasing = False  # its probe was told to end: it still has to report the probe gone
        self.runs = 0  # gold and judge runs it served (python-kept-worker.py)

    def close(self):
        for fd in (self.out_r, self.err_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.ctl.close()
        self.fds.close()


def worker_channels():
    """A worker's channels: the driver's ends (control, stdout, stderr, fork descriptors), the worker's."""
    zygote_end, worker_end = socket.socketpair()
    fds_zygote, fds_worker = socket.socketpair()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    return (zygote_end, out_r, err_r, fds_zygote), (worker_end, out_w, err_w, fds_worker)


def own_channels(channels):
    """The driver's ends of a new worker's channels, once its own are closed here."""
    ours, theirs = channels
    for end in theirs:
        end.close() if isinstance(end, socket.socket) else os.close(end)
    for fd in ours[1:3]:
        os.set_blocking(fd, False)
    return ours


def spawn_worker(idle=False):
    """A fresh worker; idle: a warmed spare of the pool (python-warm-pool.py), not dumpable until taken."""
    channels = worker_channels()
    pid = frozen_fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            worker_end, out_w, err_w, fds_worker = channels[1]
            os.dup2(worker_end.fileno(), CTL)
            os.dup2(out_w, OUT_W)
            os.dup2(err_w, ERR_W)
            os.dup2(fds_worker.fileno(), FDS)
            null = os.open('/dev/null', os.O_RDWR)
            os.dup2(null, NULL)
            os.closerange(3, CTL)
            os.closerange(FDS + 1, 65536)
            # Dumpable only now: until the driver's descriptors are closed, no process of the sandbox may
            # open them through this one's /proc/<pid>/fd (nor a fork's notCopied count them).
            if not idle:
                set_dumpable(1)
            worker_main(idle)
        finally:
            os._exit(70)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    return Worker(pid, *own_channels(channels))


class Capture:
    """Keeps the first and the last half of the cap, counts the rest."""

    def __init__(self, cap):
        self.half = max(1, cap // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def push(self, data):
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self, strip=True):
        tail = bytes(self.tail[-self.half:]) if len(self.tail) > self.half else bytes(self.tail)
        dropped = self.total - len(self.head) - len(tail)
        head = bytes(self.head).decode('utf-8', 'replace')
        if dropped <= 0:
            text, cut = head + tail.decode('utf-8', 'replace'), False
        else:
            marker = '\n[... %d bytes of output omitted: %d bytes in total ...]\n' % (dropped, self.total)
            text, cut = head + marker + tail.decode('utf-8', 'replace'), True
        return (text.strip() if strip else text), cut


def drain(fd, capture, budget=8 << 20):
    while budget > 0:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return True
        except OSError:
            return False
        if not data:
            return False
        capture.push(data)
        budget -= len(data)
    return True


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def process_table():
    """pid -> (state, parent, process group) of every process in /proc."""
    table = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as stat:
                fields = stat.read().rsplit(')', 1)[1].split()
            table[int(name)] = (fields[0], int(fields[1]), int(fields[2]))
        except (OSError, IndexError, ValueError):
            continue
    return table


def descendants(table=None):
    """Every live process below this one (zombies left out: they have no children and cannot be killed)."""
    children = {}
    for pid, (state, parent, _) in (process_table() if table is None else table).items():
        if state not in ('Z', 'X'):
            children.setdefault(parent, []).append(pid)
    found = []
    queue = [os.getpid()]
    while queue:
        for child in children.get(queue.pop(), ()):
            found.append(child)
            queue.append(child)
    return found


def others(keep, spare_branches=False):
    """Processes below this one but keep; spare_branches: also those of the agent workers other than the
    current one (the copies of a fork, see python-branches.py), so a timeout in one leaves the others be."""
    table = process_table()
    spared = set()
    if spare_branches:
        for worker in list(agents.values()) + [template['worker'] for template in pending.values()]:
            if worker is not agent:
                spared |= family(worker.pid, table)
    return [pid for pid in descendants(table) if pid not in keep and pid not in spared]


def kill_others(keep):
    """Kills every process this driver started except those in keep (and the spare worker); False when
    they keep coming."""
    keep = set(keep) | {1, os.getpid()} | ({spare.pid} if spare is not None else set())
    for _ in range(50):
        pids = others(keep, spare_branches=True)
        if not pids:
            return True
        kill_pids(pids)
    return False


def kill_pids(pids):
    """One round of a sweep: SIGKILL to each pid (gone ones ignored), reap, a short pause."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    reap()
    time.sleep(0.002)


def kill_everything():
    """Kills every process this driver started, however deep, but the pool's spare (python-warm-pool.py)
    when the sweep gets them all; else the spare too."""
    global spare
    me = os.getpid()
    table = process_table()
    mine = set(descendants(table))
    alone = all(pid in mine or pid in (1, me) or state in ('Z', 'X') for pid, (state, _, _) in table.items())
    if spare is not None:
        # Whole process groups at once but the spare's, each group's leader waited for when it is a child
        # of this driver (a worker); then a sweep by pid. What keeps coming (a fork bomb) takes the spare
        # with it, in the one kill below.
        groups = {table[pid][2] for pid in mine if pid in table} - {os.getpgrp(), spare.pid}
        for group in groups:
            try:
                os.killpg(group, signal.SIGKILL)
            except OSError:
                pass
        for group in groups:
            if group in table and table[group][1] == me:
                try:
                    os.kill(group, signal.SIGKILL)  # the leader too, should it have left its group
                    os.waitpid(group, 0)
                except (OSError, ChildProcessError):
                    pass
        for _ in range(20):
            pids = others({1, me, spare.pid})
            if not pids:
                reap()
                return
            kill_pids(pids)
        spare.close()
        spare = None
    if alone:
        # The namespace holds nothing else (a bwrap sandbox's own): one kill, no fork slips through.
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
    else:
        # Others share it (a Docker container): whole process groups at once (a fork bomb's children
        # share one), never this driver's own group; then the sweep below.
        for group in {table[pid][2] for pid in mine if pid in table} - {os.getpgrp()}:
            try:
                os.killpg(group, signal.SIGKILL)
            except OSError:
                pass
    deadline = time.time() + 5
    while time.time() < deadline:
        pids = others({1, me})
        reap()
        if not pids:
            return
        kill_pids(pids)


def exit_text(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = 'signal %d' % number
        hint = ' (out of memory?)' if number == signal.SIGKILL else ''
        return 'the interpreter was killed by %s%s' % (name, hint)
    return 'the interpreter exited with code %d' % os.WEXITSTATUS(status) if os.WIFEXITED(status) else 'the interpreter stopped'


def dev_listing():
    """name -> (inode, mode, device, owner, group) of each entry of /dev (a bwrap sandbox's own tmpfs)."""
    listing = {}
    for name in os.listdir('/dev'):
        st = os.lstat('/dev/' + name)
        listing[name] = (st.st_ino, st.st_mode, st.st_rdev, st.st_uid, st.st_gid)
    return listing


BOOT_DEV = dev_listing()  # before any worker ran: what /dev is to be at the start of every episode
IPC_REMOVE = {'shm': 'shmctl', 'sem': 'semctl', 'msg': 'msgctl'}


def ipc_ids(kind):
    try:
        with open('/proc/sysvipc/' + kind) as table:
            return [int(line.split()[1]) for line in table.read().splitlines()[1:] if line.strip()]
    except (OSError, ValueError, IndexError):
        return None


def clean_slate():
    """Once every process of the episode is dead: what lives beside the file system (which the host
    checks) back to how the driver found it: /dev as at boot, /dev/shm empty (POSIX shared memory and
    semaphores), no System V IPC object. (POSIX message queues cannot be made: the workers' RLIMIT_MSGQUEUE
    is 0.) False when something cannot be, or is not as it was (the driver's resource limits, priority
    or affinity included): the host then starts a new process tree."""
    clean = True
    try:
        now = set(os.listdir('/dev'))
        for name in now - set(BOOT_DEV):
            path = '/dev/' + name
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        clean = dev_listing() == BOOT_DEV
        for name in os.listdir('/dev/shm'):
            path = '/dev/shm/' + name
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        clean = clean and not os.listdir('/dev/shm')
    except OSError:
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
    except (ImportError, OSError):
        return False
    for kind, remove in IPC_REMOVE.items():
        for ident in ipc_ids(kind) or ():
            if kind == 'sem':
                libc.semctl(ident, 0, 0)  # IPC_RMID
            else:
                getattr(libc, remove)(ident, 0, None)
        if ipc_ids(kind) != []:
            clean = False
    # The driver's own resource limits, priority and affinity (which every later worker inherits).
    return clean and process_settings('self') == BOOT_SETTINGS


spare = None  # a fresh worker forked ahead, between requests, for the next gold or judge run (take_spare)
agent = None  # the worker of the current request's agent (agents[agent_key])
agents = {}  # agent key -> its worker: '0' at first, more after a fork (python-branches.py)
agent_key = '0'
probe = None  # pid of the copy of the agent's worker that answers the judge's calls, while one does


def fresh_agent(slate=False):
    """A new worker for the current agent once every process was killed; slate: a new episode's (see
    clean_slate). While other agents (copies of a fork) live and this is no new episode, only the
    processes of this agent's worker are (see end_branch)."""
    global agent, probe, spare
    if spare is not None and not WARM:
        spare.close()
        spare = None
    probe = None
    if not slate and (set(agents) - {agent_key} or pending):
        end_branch(agent_key)
        clean = True
    else:
        for worker in set(agents.values()) | {template['worker'] for template in pending.values()}:
            worker.close()
        agents.clear()
        pending.clear()
        kill_everything()
        clean = clean_slate() if slate else True
    # The pool's spare, when there is one that is still fit (python-warm-pool.py).
    agent = agents[agent_key] = take_spare() if WARM else spawn_worker()
    return clean



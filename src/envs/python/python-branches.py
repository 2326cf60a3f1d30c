# Branches of an episode (the host's PythonEnv.fork) in the Python driver (see python-driver.py); loaded
# after python-zygote.py, in one program with it.
#
# The driver holds one agent worker per agent key: '0' after a reset, more after a fork. Requests name
# theirs with "agent" (default '0'). `{"op":"fork","count":n}` forks nothing right away: the named agent's
# worker becomes a template (it runs nothing more), and the agent and n new keys become its pending
# branches. A pending branch's first request forks the template once (the driver sends the copy's control
# socket, output pipes and descriptor socket to the template on its FDS socket, SCM_RIGHTS; the copy is
# the template's child), and the last pending branch takes the template itself. Globals, modules and
# heap are the template's, copy-on-write. Answers `{"agents":[key…],"notCopied":[…],"restarted":bool}`.
# `{"op":"drop"}` ends the named agent's worker and what it started (its family, see family()), or its
# pending branch (the template ends with its last one).

BOOT = os.urandom(4).hex()  # keys of one driver never name another's workers
MAX_AGENTS = 129  # the original and 128 copies at once
FORK_WAIT = 5.0  # seconds a template gets to fork a copy
branches_made = 0
pending = {}  # agent key -> its template: {'worker': Worker, 'keys': set of pending keys}


def select_agent(key):
    """The current agent becomes key's; a pending branch gets its worker (None when it cannot)."""
    global agent, agent_key
    agent_key = str(key)
    agent = agents.get(agent_key)
    if agent is None and agent_key in pending:
        agent = branch_worker(agent_key)
        if agent is not None:
            agents[agent_key] = agent


def branch_worker(key):
    """The worker of pending branch key: a fork of its template, or the template itself for the last one."""
    template = pending.pop(key)
    template['keys'].discard(key)
    if not template['keys']:
        return template['worker']
    source = template['worker']
    made = worker_channels()
    reply = None
    try:
        socket.send_fds(source.fds, [b'f'], [end if type(end) is int else end.fileno() for end in made[1]])
        source.ctl.sendall(pack({'fork': 1}))
        reply = next_message(source, FORK_WAIT)
    except OSError:
        pass
    channels = own_channels(made)
    pids = reply.get('pids') if isinstance(reply, dict) and reply.get('k') == 'forked' else None
    if type(pids) is not list or len(pids) != 1 or type(pids[0]) is not int:
        Worker(0, *channels).close()
        return None
    return Worker(pids[0], *channels)


def family(root, table):
    """The processes of the worker root: itself, those in its process group (a worker's is its pid) and
    everything below them, but the other workers and theirs (a copy is its template's child). What left
    its group and its parent (a daemon) belongs to no worker."""
    others = {worker.pid for worker in agents.values()} | {t['worker'].pid for t in pending.values()}
    others.discard(root)
    children = {}
    for pid, (state, parent, _) in table.items():
        if state not in ('Z', 'X') and pid not in others:
            children.setdefault(parent, []).append(pid)
    found = {root} | {pid for pid, (state, _, group) in table.items()
                      if group == root and state not in ('Z', 'X') and pid not in others}
    queue = list(found)
    while queue:
        for child in children.get(queue.pop(), ()):
            if child not in found:
                found.add(child)
                queue.append(child)
    return found


def end_branch(key):
    """Ends the worker of agent key and its family, or its pending branch; False when there was none."""
    global agent
    worker = agents.pop(key, None)
    if worker is None and key in pending:
        template = pending.pop(key)
        template['keys'].discard(key)
        if template['keys']:
            return True
        worker = template['worker']
    if worker is None:
        return False
    if worker is agent:
        agent = None
    worker.close()
    for _ in range(50):
        pids = family(worker.pid, process_table()) & set(descendants())
        if not pids:
            break
        kill_pids(pids)
    reap()
    return True


def fork(request):
    """count pending branches of the current agent beside its own (see the header)."""
    global agent, branches_made
    count = request.get('count')
    if type(count) is not int or count < 1 or len(agents) + len(pending) + count > MAX_AGENTS:
        return {'error': 'fork count must be from 1 to %d' % (MAX_AGENTS - len(agents) - len(pending))}
    restarted = False
    if agent is None:
        fresh_agent()
        restarted = agent_key != '0'  # as in run: '0' has no worker before its first request
    elif settle_agent():
        restarted = True
    notes = uncopied(agent.pid)
    started = len(family(agent.pid, process_table()) - {agent.pid}) if may_have_started(agent.pid) else 0
    if started:
        notes.append('%d process%s the agent\'s code started and left running: they stay with one branch '
                     '(the first to act, or the original), the others have no such child and cannot wait for it'
                     % (started, 'es' if started > 1 else ''))
    keys = []
    for _ in range(count):
        branches_made += 1
        keys.append('%s-%d' % (BOOT, branches_made))
    template = {'worker': agents.pop(agent_key), 'keys': set(keys) | {agent_key}}
    for key in template['keys']:
        pending[key] = template
    agent = None
    return {'agents': keys, 'notCopied': notes, 'restarted': restarted}


def children_of(pid):
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as listing:
            return {int(child) for child in listing.read().split()}
    except (OSError, ValueError):
        return set()


def may_have_started(pid):
    """Whether worker pid may have processes of its own (a child, or an orphan of its group here): two
    reads of /proc in the usual case, where a whole process table costs milliseconds on a busy machine."""
    workers = {worker.pid for worker in agents.values()} | {t['worker'].pid for t in pending.values()}
    if children_of(pid) - workers:
        return True
    for orphan in children_of(os.getpid()) - workers - ({spare.pid} if spare is not None else set()):
        try:
            with open('/proc/%d/stat' % orphan) as stat:
                if int(stat.read().rsplit(')', 1)[1].split()[2]) == pid:
                    return True
        except (OSError, IndexError, ValueError):
            return True
    return False


def uncopied(pid):
    """What a fork of worker pid does not copy, one sentence each: its other threads, its open sockets,
    pipes and files (shared, not copied)."""
    notes = []
    try:
        threads = len(os.listdir('/proc/%d/task' % pid)) - 1
    except OSError:
        threads = 0
    if threads:
        notes.append('%d thread%s besides the main one: a copy has only the main thread (what a thread held, '
                     'such as a lock, stays held)' % (threads, 's' if threads > 1 else ''))
    kinds = {}
    try:
        fds = [int(name) for name in os.listdir('/proc/%d/fd' % pid)]
    except OSError:
        fds = []
    for fd in fds:
        if fd in (0, 1, 2, CTL, OUT_W, ERR_W, NULL, FDS):
            continue
        try:
            link = os.readlink('/proc/%d/fd/%d' % (pid, fd))
        except OSError:
            continue
        kind = link.split(':', 1)[0] if ':' in link and not link.startswith('/') else 'file'
        kinds[kind] = kinds.get(kind, 0) + 1
    said = {
        'socket': 'open socket%s: the copies share each with the original (a message one reads, the others do not get)',
        'pipe': 'open pipe%s: the copies share each with the original',
        'file': 'open file%s: the copies share each one\'s position with the original (a read or write in one '
                'moves it for all)',
    }
    for kind, number in sorted(kinds.items()):
        plural = 's' if number > 1 else ''
        text = said.get(kind, 'open ' + kind + ' descriptor%s: the copies share each with the original')
        notes.append('%d %s' % (number, text % plural))
    return notes


# ---------------------------------------------------------------- worker side


def fork_copies(count, state, send):
    """In a template's worker: count copies of it, each going on as the worker of its own agent key, with
    the channels the driver sent on FDS. True in a copy (its loop goes on), False in the template."""
    with socket.socket(fileno=os.dup(FDS)) as channel:
        _, fds, _, _ = socket.recv_fds(channel, 16, 4 * count)
    pids = []
    if len(fds) == 4 * count:
        for index in range(count):
            pid = frozen_fork()
            if pid == 0:
                os.setpgid(0, 0)
                for target, fd in zip((CTL, OUT_W, ERR_W, FDS), fds[4 * index:4 * index + 4]):
                    os.dup2(fd, target)
                for fd in fds:
                    os.close(fd)
                state['me'] = os.getpid()
                state['copies'] = set()
                return True
            pids.append(pid)
            state.setdefault('copies', set()).add(pid)
    for fd in fds:
        os.close(fd)
    send({'k': 'forked', 'pids': pids})
    return False


def reap_copies(state):
    """Waits for the copies this worker forked that are gone (their parent is this worker until it ends)."""
    for pid in list(state.get('copies') or ()):
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                state['copies'].discard(pid)
        except ChildProcessError:
            state['copies'].discard(pid)

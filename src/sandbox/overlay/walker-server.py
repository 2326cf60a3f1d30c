# The mount helper's walkers and main loop (see mount-helper.py, whose header documents the protocol);
# loaded after it, in one program with it.

def usage(d):
    s = os.statvfs(os.path.join(d, 't'))
    return (s.f_blocks - s.f_bfree) * s.f_frsize

def snapshot_box(upper, dest, budget):
    # cp -a keeps whiteouts (character devices), opaque markers (trusted xattrs), owners and times;
    # it copies links as links and FIFOs as FIFOs, never reading through either.
    os.makedirs(dest, exist_ok=True)
    left = max(0.1, budget.deadline - time.monotonic())
    try:
        subprocess.run(['cp', '-a', '--preserve=all', upper + '/.', dest], check=True, capture_output=True,
                       timeout=left, preexec_fn=lambda: libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0))
    except subprocess.TimeoutExpired:
        raise WalkLimit('time', 'the snapshot did not finish within its time bound')
    except subprocess.CalledProcessError as ex:
        raise OSError('cp failed: ' + ex.stderr.decode('utf-8', 'replace').strip()[-500:])

def walk(req, budget):
    """The work of a walk request, in a walker process."""
    op = req['op']
    if op == 'diff':
        return {'changes': diff_tree(req['upper'], req['lowers'], budget)}
    if op == 'digest':
        return {'digests': digest_paths(req['root'], req['paths'], budget)}
    snapshot_box(req['upper'], req['dest'], budget)
    return {}

WALKS = ('diff', 'digest', 'snapshot')
MAX_REPLY = 256 << 20
MAX_IDLE = 4

def limit_reply(kind, message):
    return {'ok': False, 'limit': kind, 'error': message}

def serve_walks(r, w):
    """A walker process: one request line in on `r`, one reply line out on `w`, until end of file."""
    null = os.open('/dev/null', os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    as_hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    pending = b''
    while True:
        while b'\n' not in pending:
            chunk = os.read(r, 1 << 16)
            if not chunk:
                os._exit(0)
            pending += chunk
        line, pending = pending.split(b'\n', 1)
        retire = False
        req = None
        try:
            req = json.loads(line)
            bounds = req.get('bounds') or {}
            timeout = bounds.get('timeoutMs', 10000) / 1000.0
            memory = int(bounds.get('memoryBytes', 512 << 20))
            if as_hard != resource.RLIM_INFINITY: memory = min(memory, as_hard)
            resource.setrlimit(resource.RLIMIT_AS, (memory, as_hard))
            used = resource.getrusage(resource.RUSAGE_SELF)
            cpu = int(used.ru_utime + used.ru_stime + timeout) + 2
            if cpu_hard != resource.RLIM_INFINITY: cpu = min(cpu, cpu_hard)
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
            budget = Budget(int(bounds.get('maxEntries', 100000)), time.monotonic() + timeout)
            reply = walk(req, budget)
            reply['ok'] = True
        except WalkLimit as ex:
            reply = limit_reply(ex.kind, str(ex))
        except MemoryError:
            reply = limit_reply('memory', 'the walk needed more memory than its bound')
            retire = True
        except RecursionError:
            reply = limit_reply('memory', 'the walk went too deep')
            retire = True
        except Exception as ex:
            reply = {'ok': False, 'error': str(ex)}
        try:
            resource.setrlimit(resource.RLIMIT_AS, (as_hard, as_hard))
            reply['id'] = req.get('id') if isinstance(req, dict) else None
            # The reply line as the helper forwards it, after one byte: R (this walker retires) or K.
            data = memoryview((('R' if retire else 'K') + json.dumps(reply) + '\n').encode())
            while data:
                data = data[os.write(w, data):]
        except BaseException:
            os._exit(3)
        if retire:
            os._exit(0)

class Walker:
    """A walker process forked from the helper, reused for walk after walk; killed at a deadline."""

    def __init__(self):
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(req_w)
                os.close(rep_r)
                for other in walkers:
                    os.close(other.req)
                    os.close(other.rep)
                serve_walks(req_r, rep_w)
            finally:
                os._exit(3)
        os.close(req_r)
        os.close(rep_w)
        os.set_blocking(rep_r, False)
        self.pid, self.req, self.rep = pid, req_w, rep_r
        self.data = bytearray()
        self.job = None  # (request id, deadline, timeout) while busy
        walkers.append(self)
        sel.register(rep_r, selectors.EVENT_READ, self)

    def start(self, req, line):
        bounds = req.get('bounds') or {}
        timeout = bounds.get('timeoutMs', 10000) / 1000.0
        # The walker checks its own deadline; this one, a second later, is for a walker that cannot.
        self.job = (req.get('id'), time.monotonic() + timeout + 1.0, timeout)
        view = memoryview(line + b'\n')
        while view:
            view = view[os.write(self.req, view):]

    def end(self, status=None):
        """Kills the walker and forgets it; the status of a walker already dead when known."""
        walkers.remove(self)
        sel.unregister(self.rep)
        os.close(self.req)
        os.close(self.rep)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return os.waitpid(self.pid, 0)[1]

def send(reply):
    try:
        sys.stdout.write(json.dumps(reply) + '\n')
        sys.stdout.flush()
    except OSError:
        pass  # The parent is gone: the loop ends at the end of stdin.

def answer(walker, reply):
    reply['id'] = walker.job[0]
    walker.job = None
    send(reply)

def on_walker_output(walker):
    try:
        chunk = read_chunk(walker.rep)
    except BlockingIOError:
        return
    if not chunk:
        status = walker.end()
        if walker.job is not None:
            answer(walker, limit_reply('crashed', 'the walk ended without a result (%s)' % describe(status)))
        return
    walker.data += chunk
    at = walker.data.find(b'\n')
    if at < 0:
        if len(walker.data) > MAX_REPLY:
            walker.end()
            answer(walker, limit_reply('output', 'the walk produced more than %d bytes' % MAX_REPLY))
        return
    retire = walker.data[:1] == b'R'
    line = bytes(walker.data[1:at + 1])
    walker.data = bytearray()
    if walker.job is not None:
        walker.job = None
        try:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
        except OSError:
            pass
    if retire or sum(1 for w in walkers if w.job is None) > MAX_IDLE:
        walker.end()

def start_walk(req, line):
    idle = [w for w in walkers if w.job is None]
    try:
        walker = idle[0] if idle else Walker()
        walker.start(req, line)
    except OSError as ex:
        send({'ok': False, 'error': 'cannot start the walk: ' + str(ex), 'id': req.get('id')})

def describe(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig in (signal.SIGXCPU, signal.SIGKILL):
            return 'killed by signal %d: out of CPU time or memory' % sig
        return 'killed by signal %d' % sig
    return 'exit %d' % os.WEXITSTATUS(status)

def handle(req):
    op = req['op']
    if op == 'mount':
        if userns_fd is not None:
            mount_binds(req['dir'], req.get('binds') or [])
        try:
            mount_box(req['dir'], req['lowers'], req['sizeBytes'], req.get('seed'))
        except OSError:
            umount_binds(req['dir'])
            raise
        return {}
    if op == 'remount':
        umount_box(req['dir'])
        mount_box(req['dir'], req['lowers'], req['sizeBytes'])
        return {}
    if op == 'renew':
        try:
            kept = renew_box(req)
        except Refused as ex:
            return {'renewed': False, 'why': str(ex)}
        return dict(kept, renewed=True)
    if op == 'umount':
        umount_box(req['dir'])
        umount_binds(req['dir'])
        return {}
    if op == 'keep':
        keep_upper(req['upper'], req['dir'], req['sizeBytes'])
        return {}
    if op == 'unkeep':
        do_umount(req['dir'])
        os.rmdir(req['dir'])
        return {}
    if op == 'usage':
        return {'bytes': usage(req['dir'])}
    if op == 'reuse_container':
        try:
            reuse_container(int(req['pid']), int(req['last']))
        except Refused as ex:
            return {'reused': False, 'why': str(ex)}
        return {'reused': True}
    if op == 'number_container':
        number_container(int(req['pid']), int(req['last']))
        return {}
    if op == 'ping':
        return {'pid': os.getpid(), 'userns': userns_pid}
    raise ValueError('unknown op ' + str(op))

def on_request(line):
    try:
        req = json.loads(line)
    except ValueError:
        return
    if req.get('op') in WALKS:
        start_walk(req, line)
        return
    try:
        reply = handle(req)
        reply['ok'] = True
    except Exception as ex:
        reply = {'ok': False, 'error': str(ex)}
    reply['id'] = req.get('id')
    send(reply)

sel = selectors.DefaultSelector()
walkers = []
pending = bytearray()
os.set_blocking(0, False)
sel.register(0, selectors.EVENT_READ, None)
while True:
    now = time.monotonic()
    deadlines = [w.job[1] for w in walkers if w.job is not None]
    wait = min(deadlines) - now if deadlines else None
    for key, _ in sel.select(None if wait is None else max(0.0, wait)):
        if key.data is not None:
            if key.data in walkers:
                on_walker_output(key.data)
            continue
        try:
            chunk = os.read(0, 1 << 16)
        except BlockingIOError:
            continue
        if not chunk:
            # The parent is gone: walks still running are of no use to anyone.
            for walker in list(walkers):
                walker.end()
            break
        pending += chunk
        while True:
            at = pending.find(b'\n')
            if at < 0:
                break
            line = bytes(pending[:at])
            del pending[:at + 1]
            on_request(line)
    else:
        now = time.monotonic()
        for walker in [w for w in walkers if w.job is not None and w.job[1] <= now]:
            timeout = walker.job[2]
            walker.end()
            answer(walker, limit_reply('time', 'the walk did not finish within %g s' % timeout))
        continue
    break

for d in list(mounted):
    try:
        umount_box(d)
        umount_binds(d)
    except OSError: pass
